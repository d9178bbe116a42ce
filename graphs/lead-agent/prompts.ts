// The lead agent's system prompt, assembled per model call from what the thread has.
export interface PromptSkill {
  name: string;
  description: string;
  /** Where the agent reads it: `/mnt/skills/<category>/<name>/SKILL.md`. */
  path: string;
}

export interface PromptUpload {
  /** `/mnt/user-data/uploads/<file>` */
  path: string;
  size: number;
  /** The Markdown conversion, when there is one. */
  markdownPath?: string;
}

export interface PromptContext {
  skills: readonly PromptSkill[];
  uploads: readonly PromptUpload[];
  planMode: boolean;
  subagents: boolean;
  bash: boolean;
  now: Date;
  /** A custom agent's persona. */
  soul?: string;
  /** What is remembered about the user (memory-prompt.ts), already cut to its budget. */
  memory?: string;
  /** A bootstrap run: the name of the custom agent being designed, which setup_agent saves. */
  bootstrapAgent?: string;
}

/** The one skill a bootstrap run is told about (DeerFlow's skills/public/bootstrap). */
export const BOOTSTRAP_SKILL = 'bootstrap';

const bootstrapSection = (name: string) => `## Creating a custom agent
You are helping the user create a new custom agent named "${name}". Talk with them to work out its purpose, its personality and tone, the rules it follows, and which skills it needs. Then write its SOUL.md: a Markdown description of who the agent is and how it behaves, addressed to the agent itself.
When the user is satisfied, or asks you to save, call setup_agent with soul (the full SOUL.md), description (one line on what the agent is for) and, if it should be limited, skills. Do not call it before the design is agreed, and tell the user once the agent is saved.`;

const BASE = `You are Warren, a capable agent working inside a conversation thread with its own files.

Your working folders:
- /mnt/user-data/uploads: files the user uploaded (read-only for you).
- /mnt/user-data/workspace: your scratch space.
- /mnt/user-data/outputs: deliverables for the user. Write final files here, then call present_files so the user can download them.

Work carefully: read before you edit, prefer small verified steps, and say plainly when you are unsure. When something is ambiguous and matters, ask with ask_clarification instead of guessing.`;

export function leadAgentPrompt(ctx: PromptContext): string {
  const parts = [BASE, `Current date: ${ctx.now.toISOString().slice(0, 10)}.`];
  // A custom agent's persona comes first after the base rules, which it may not override.
  if (ctx.soul) parts.push(`## Persona\n${ctx.soul}`);
  if (ctx.bootstrapAgent) parts.push(bootstrapSection(ctx.bootstrapAgent));
  if (ctx.memory) parts.push(ctx.memory);
  if (ctx.uploads.length > 0) {
    const lines = ctx.uploads.map((u) =>
      u.markdownPath ? `- ${u.path} (${u.size} bytes); its text as Markdown: ${u.markdownPath}` : `- ${u.path} (${u.size} bytes)`,
    );
    parts.push(
      `## Uploaded files\nThe user uploaded these files to this thread. Read them with read_file (use the Markdown version of documents) before searching the web for their content.\n${lines.join('\n')}`,
    );
  }
  if (ctx.skills.length > 0) {
    const lines = ctx.skills.map((s) => `- ${s.name}: ${s.description} (instructions: ${s.path})`);
    parts.push(
      `## Skills\nSkills are instructions for specific kinds of tasks. When a task fits one, read its SKILL.md with read_file first and follow it.\n${lines.join('\n')}`,
    );
  }
  if (ctx.bash) parts.push('## Shell\nThe bash tool runs commands in a sandbox where only /mnt/user-data and /mnt/skills exist.');
  if (ctx.planMode) {
    parts.push(
      '## Planning\nFor any task with three or more steps, keep a todo list with write_todos: write it before you start, mark one item in_progress at a time, and mark items completed as soon as they are done.',
    );
  }
  if (ctx.subagents) {
    parts.push(
      '## Sub-agents\nUse the task tool to delegate independent pieces of work to sub-agents (general-purpose, or bash for command-line work). Up to three run in parallel; give each a complete, self-contained description.',
    );
  }
  return parts.join('\n\n');
}

export function titlePrompt(maxWords: number): string {
  return `Write a title of at most ${maxWords} words for the conversation below. Answer with the title only, no quotes.`;
}

export const SUMMARY_PROMPT =
  'Summarise the conversation so far for your own future reference: the user\'s goals, decisions made, facts learned, files created and open tasks. Be concise and concrete.';

export const SUBAGENT_PROMPTS: Record<'general-purpose' | 'bash', string> = {
  'general-purpose':
    'You are a sub-agent. Complete the task you are given using your tools, then answer with a concise report of what you found or did. You cannot ask the user questions.',
  bash: 'You are a command-line sub-agent. Use the bash tool to complete the task, then answer with a concise report including the key output.',
};
