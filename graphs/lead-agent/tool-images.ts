// view_image puts its image inside the tool message. Anthropic accepts images in tool results;
// OpenAI's Chat Completions API (and most OpenAI-compatible servers) accept only text there.
// For those providers, the model's input is rewritten: each image leaves its tool message and
// comes right after the run of tool messages, in one user message. The stored state is unchanged.
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';

type Block = Record<string, unknown>;

function isImageBlock(block: unknown): block is Block {
  if (block === null || typeof block !== 'object') return false;
  const type = (block as Block).type;
  return type === 'image_url' || type === 'image';
}

/** The messages with every tool-message image moved into a user message after its tool-message run. */
export function liftToolImages(messages: BaseMessage[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  let pending: Block[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const content = [{ type: 'text', text: 'The image(s) returned by the tool call(s) above:' }, ...pending];
    out.push(new HumanMessage({ content: content as HumanMessage['content'] }));
    pending = [];
  };
  for (const message of messages) {
    // Tool messages answering one assistant turn must stay together, so images wait for the run's end.
    if (!ToolMessage.isInstance(message)) flush();
    if (ToolMessage.isInstance(message) && Array.isArray(message.content) && message.content.some(isImageBlock)) {
      const blocks = message.content as unknown[];
      pending.push(...blocks.filter(isImageBlock));
      const text = blocks.filter((b) => !isImageBlock(b));
      out.push(
        new ToolMessage({
          id: message.id,
          name: message.name,
          tool_call_id: message.tool_call_id,
          status: message.status,
          artifact: message.artifact,
          content: [...(text as Block[]), { type: 'text', text: '(the image follows in the next message)' }] as ToolMessage['content'],
        }),
      );
      continue;
    }
    out.push(message);
  }
  flush();
  return out;
}
