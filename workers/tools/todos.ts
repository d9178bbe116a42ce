// write_todos: the plan-mode task list, kept in `values.todos`. Each call replaces the list.
import { ToolMessage } from '@langchain/core/messages';
import { tool, type ToolRunnableConfig } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import { ToolArgumentInvalidError } from './tools.errors.js';

const STATUSES = ['pending', 'in_progress', 'completed'] as const;
type Status = (typeof STATUSES)[number];

interface TodoInput {
  todos: { content: string; status: Status }[];
}

function parseTodos(input: unknown): TodoInput['todos'] {
  const todos = (input as { todos?: unknown }).todos;
  if (!Array.isArray(todos)) throw new ToolArgumentInvalidError('todos must be a list of {content, status}');
  return todos.map((t, i) => {
    const item = t as { content?: unknown; status?: unknown };
    if (typeof item.content !== 'string' || item.content.trim() === '') throw new ToolArgumentInvalidError(`todo ${i + 1} needs content`);
    if (!STATUSES.includes(item.status as Status)) throw new ToolArgumentInvalidError(`todo ${i + 1}: status must be one of ${STATUSES.join(', ')}`);
    return { content: item.content.trim(), status: item.status as Status };
  });
}

export const writeTodosTool = tool(
  async (input: unknown, config: ToolRunnableConfig) => {
    const todos = parseTodos(input);
    const summary = todos.map((t) => `[${t.status === 'completed' ? 'x' : t.status === 'in_progress' ? '~' : ' '}] ${t.content}`).join('\n');
    return new Command({
      update: {
        todos,
        messages: [new ToolMessage({ content: `Todo list updated:\n${summary}`, tool_call_id: config.toolCall?.id ?? '', name: 'write_todos' })],
      },
    });
  },
  {
    name: 'write_todos',
    description:
      'Write the task list for this work: the whole list each time, every item with content and status (pending, in_progress or completed). Keep exactly one item in_progress while working.',
    schema: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          items: {
            type: 'object',
            properties: { content: { type: 'string' }, status: { type: 'string', enum: [...STATUSES] } },
            required: ['content', 'status'],
          },
        },
      },
      required: ['todos'],
    },
  },
);
