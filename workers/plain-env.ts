// Imported first by workers/main.ts, so it runs before any other module reads the environment.
// LangChain and LangSmith read process.env on every callback of every token (about a thousand
// reads per run), and each read of Node's process.env is a call into C++ (~1 µs here). A plain
// copy makes each read a property lookup (~70× faster: 2 % of the worker's CPU at c = 50). The
// worker sets only variables that JavaScript reads (LANGGRAPH_API_URL), and child processes get
// this object as their environment, so nothing needs the native one to change after start.
process.env = { ...process.env };

// LangChain runs a callback handler "in the background" unless this says otherwise: every call of
// every handler that does not await (LangGraph's own `messages` stream handler among them, once per
// token) goes through one process-wide promise queue, which cost the worker more than the handler
// itself (2.2 % of its CPU at c = 50, #34). In line, a token reaches the run's stream in the same
// order and sooner. With LangSmith tracing on, the setting would also hold every run until its
// trace is uploaded, so it is then left to the operator.
const tracing = ['LANGSMITH_TRACING', 'LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING', 'LANGCHAIN_TRACING_V2'].some((name) => process.env[name] === 'true');
if (!tracing) process.env.LANGCHAIN_CALLBACKS_BACKGROUND ??= 'false';
