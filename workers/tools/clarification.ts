// `ask_clarification`: the agent stops to ask the user. The tool raises a LangGraph interrupt
// carrying the question; the run ends `interrupted`, and a run with `command: {resume: answer}`
// re-enters the tool, where `interrupt` now returns that answer as the tool's result.
import type { StructuredToolInterface } from '@langchain/core/tools';
import { interrupt } from '@langchain/langgraph';
import { Type, type Static } from 'typebox';
import { defineTool, nullable } from './define-tool.js';

/** One input of a clarification form, as DeerFlow's UI draws it. */
export const ClarificationFieldSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128, description: 'Key of this answer in the reply.' }),
  label: nullable(Type.String({ maxLength: 500 })),
  type: nullable(
    Type.Union(['text', 'textarea', 'number', 'select', 'multi_select', 'checkbox', 'date'].map((kind) => Type.Literal(kind)), {
      description: 'The input: text (default), textarea, number, select, multi_select, checkbox or date.',
    }),
  ),
  required: nullable(Type.Boolean()),
  options: nullable(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 24, description: 'Choices of a select or multi_select.' })),
  placeholder: nullable(Type.String({ maxLength: 500 })),
});
export type ClarificationField = Static<typeof ClarificationFieldSchema>;

export const ClarificationRequestSchema = Type.Object({
  question: Type.String({ minLength: 1, description: 'The question for the user, self-contained and specific.' }),
  options: nullable(Type.Array(Type.String(), { maxItems: 24, description: 'Answers the user may pick from, when there are a few clear ones.' })),
  context: nullable(Type.String({ description: 'Why you are asking: what is ambiguous or missing.' })),
  /** A small form instead of one free answer; it takes precedence over `options`. */
  fields: nullable(Type.Array(ClarificationFieldSchema, { maxItems: 16, description: 'Inputs to ask for at once, as a form.' })),
  /** DeerFlow's kinds of question; its UI may style them apart. */
  clarification_type: Type.Optional(
    Type.Union(
      ['missing_info', 'ambiguous_requirement', 'approach_choice', 'risk_confirmation', 'suggestion'].map((kind) => Type.Literal(kind)),
      { description: 'What kind of question it is.' },
    ),
  ),
});
export type ClarificationRequest = Static<typeof ClarificationRequestSchema>;

/** What the client sees in the interrupt's `value`. */
export interface ClarificationInterrupt {
  type: 'clarification';
  question: string;
  options: string[];
  context?: string;
  clarification_type?: string;
  fields?: ClarificationField[];
}

/** The resume value as text: a string as is, `{answer}` unwrapped, anything else as JSON. */
export function answerText(resume: unknown): string {
  if (typeof resume === 'string') return resume;
  if (resume !== null && typeof resume === 'object' && 'answer' in resume && typeof resume.answer === 'string') return resume.answer;
  if (resume === undefined || resume === null) return '(the user gave no answer)';
  return JSON.stringify(resume);
}

export function createClarificationTool(): StructuredToolInterface {
  return defineTool(
    {
      name: 'ask_clarification',
      description:
        'Ask the user a question and wait for the answer. Use it when the request is ambiguous or lacks information you cannot find yourself, before doing work that depends on it. The answer comes back as this tool\'s result.',
      schema: ClarificationRequestSchema,
    },
    async ({ question, options, context, clarification_type: kind, fields }) => {
      const request: ClarificationInterrupt = {
        type: 'clarification',
        question,
        options: options ?? [],
        ...(context ? { context } : {}),
        ...(kind ? { clarification_type: kind } : {}),
        ...(fields && fields.length > 0 ? { fields } : {}),
      };
      return answerText(interrupt(request));
    },
  );
}
