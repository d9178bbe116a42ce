// The one graph both servers host: a chat node that calls a real ChatOpenAI client against the
// bench's scripted OpenAI-compatible server. Both servers import this same file.
//
// Two model clients, picked per run by `configurable.gated`: the direct one for throughput and
// latency, and one through the bench's gate (fan-out and idle connections), which holds the
// answer until every client has joined and stamps each token with its send time.
import { END, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';

function modelFor(envName: string): ChatOpenAI {
  const baseURL = process.env[envName];
  if (!baseURL) throw new Error(`${envName} is not set: the bench passes the scripted model's URL to both servers`);
  // No `streaming: true`: LangChain streams by itself when the messages stream mode listens, and
  // forced streaming would fetch a tokenizer from the internet to count tokens.
  return new ChatOpenAI({ model: 'bench-model', apiKey: 'not-needed', maxRetries: 0, configuration: { baseURL } });
}

const direct = modelFor('BENCH_MODEL_URL');
const gated = modelFor('BENCH_GATED_MODEL_URL');

async function chat(state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) {
  const model = config.configurable?.gated === true ? gated : direct;
  const reply = await model.invoke(state.messages, config);
  return { messages: [reply] };
}

export const chatGraph = new StateGraph(MessagesAnnotation).addNode('chat', chat).addEdge(START, 'chat').addEdge('chat', END).compile();
