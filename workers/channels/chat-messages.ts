// What a user's message does, whatever the platform, once the platform's protocol has read it:
// a user not on the allow list, a command, a message with nothing Warren reads, or a file over
// the limit gets a reply; anything else becomes a run of the conversation's thread, its files
// first stored as uploads of the thread (with conversion). A refusal that trying again will not
// change is answered; an outage (the platform's, or Redis's) is waited out.
import { writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { WarrenError } from '../../src/errors.js';
import { tempPathIn, virtualPath, type ThreadFiles } from '../../src/workspace/thread-files.js';
import type { UploadWriter } from '../../src/uploads/uploads.js';
import { CONNECT_COMMANDS } from '../../src/channels/channels.js';
import { helpText, type ChatOrigin, type ChatRuns } from './chat-runs.js';
import { RefusedError, type Retry } from './retry.js';
import type { RunAnswers } from './run-answers.js';

/** A file the user attached, as the platform offers it. */
export interface IncomingAttachment {
  filename: string;
  /** Bytes, when the platform tells them before the download. */
  size: number | null;
  /** The file's bytes; refused with FileTooLargeError above `maxBytes`. */
  download(maxBytes: number, signal: AbortSignal): Promise<Uint8Array>;
}

/** A user's message, read from the platform's protocol. */
export interface IncomingMessage {
  origin: ChatOrigin;
  /** The command's name (`new`, lower case) when the text is one; null otherwise. */
  command: string | null;
  text: string;
  attachments: IncomingAttachment[];
}

/** What a platform's connection is built with besides its own protocol. */
export interface ConnectionParts {
  chatRuns: ChatRuns;
  bindings: ChatBindings;
  /** Follows the runs whose answers this connection sends. */
  answers: Pick<RunAnswers, 'follow' | 'stopAll'>;
  uploads: Pick<UploadWriter, 'store'>;
  files: Pick<ThreadFiles, 'ensureArea'>;
  /** Warren's upload limit for one file. */
  maxFileBytes: number;
  log: Logger;
}

/** A download refused because the file is over the limit. */
export class FileTooLargeError extends RefusedError {
  override name = 'FileTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the file is larger than ${maxBytes} bytes`);
  }
}

/** Chat accounts bound to Warren users with the UI's connect codes (chat-bindings.ts). */
export interface ChatBindings {
  /** Takes a connect code the sender sent; the reply that says what it did. */
  connect(origin: ChatOrigin, code: string): Promise<string>;
  /** The Warren user the sender's messages run as; null when the channel answers only bound accounts and this one is not. */
  ownerOf(origin: ChatOrigin): Promise<string | null>;
}

export interface ChatMessagesDeps {
  /** The platform as users know it ("Telegram"), for replies. */
  platform: string;
  /** User ids that may start runs; empty lets everyone in. */
  allowedUsers: readonly string[];
  /** What the platform's messages may carry that Warren reads ("text, documents and photos"). */
  readable: string;
  chatRuns: ChatRuns;
  bindings: ChatBindings;
  answers: Pick<RunAnswers, 'follow'>;
  uploads: Pick<UploadWriter, 'store'>;
  files: Pick<ThreadFiles, 'ensureArea'>;
  /** The largest file taken: Warren's upload limit, or the platform's download limit if lower. */
  fileLimit: number;
  retry: Retry;
  log: Logger;
}

/** `/name` (or `/name@bot`) at the start of a text, lower-cased; null for any other text. */
export function commandOf(text: string | undefined): string | null {
  const match = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s|$)/.exec(text ?? '');
  return match ? (match[1] as string).toLowerCase() : null;
}

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

export function createChatMessages(deps: ChatMessagesDeps) {
  const { chatRuns, retry, log, fileLimit } = deps;

  async function command(name: string, origin: ChatOrigin): Promise<string> {
    if (name === 'start' || name === 'help') return helpText();
    if (name === 'new') {
      await chatRuns.newThread(origin);
      return 'New conversation started.';
    }
    if (name === 'status') return chatRuns.status(await chatRuns.threadFor(origin));
    if (name === 'stop') return chatRuns.stop(await chatRuns.threadFor(origin));
    return `Unknown command /${name}.\n\n${helpText()}`;
  }

  /** Stores downloaded bytes as the thread's upload (with conversion); the virtual path the agent reads. */
  async function upload(threadId: string, attachment: IncomingAttachment, bytes: Uint8Array): Promise<string> {
    const tempPath = tempPathIn(await deps.files.ensureArea(threadId, 'uploads'));
    await writeFile(tempPath, bytes);
    const { files } = await deps.uploads.store(threadId, [{ filename: attachment.filename, tempPath, size: bytes.byteLength }]);
    const stored = files[0];
    return stored?.markdown_virtual_path ?? stored?.virtual_path ?? virtualPath('uploads', attachment.filename);
  }

  /** What a message does; the reply for a message that does not become a run. */
  async function act(message: IncomingMessage, signal: AbortSignal): Promise<string | null> {
    // A connect code comes before the allow list: an account binds before anyone lists it.
    const code = message.command !== null && (CONNECT_COMMANDS as readonly string[]).includes(message.command) ? message.text.trim().split(/\s+/)[1] : undefined;
    if (code) return deps.bindings.connect(message.origin, code);
    if (deps.allowedUsers.length > 0 && !deps.allowedUsers.includes(message.origin.userId)) {
      return `Sorry, this bot only answers its allowed users. Your ${deps.platform} user id is ${message.origin.userId || 'unknown'}.`;
    }
    const owner = await deps.bindings.ownerOf(message.origin);
    if (owner === null) {
      return `This ${deps.platform} account is not connected to Warren. In Warren, open Settings › Channels, choose Connect for ${deps.platform}, and send the code it shows here.`;
    }
    const origin: ChatOrigin = { ...message.origin, owner };
    if (message.command !== null) return command(message.command, origin);
    const text = message.text.trim();
    if (text === '' && message.attachments.length === 0) return `I read ${deps.readable}; this kind of message is not supported.`;
    const tooLarge = message.attachments.find((a) => a.size !== null && a.size > fileLimit);
    if (tooLarge?.size != null) return `${tooLarge.filename} is ${mib(tooLarge.size)}; files up to ${mib(fileLimit)} are accepted. Nothing was started.`;
    // Every file is downloaded before anything is made: one over the limit leaves no trace.
    const downloads: Uint8Array[] = [];
    for (const attachment of message.attachments) downloads.push(await retry.untilDone(() => attachment.download(fileLimit, signal), signal, log, 'downloading a file'));
    const threadId = await chatRuns.threadFor(origin);
    const lines = text === '' ? [] : [text];
    for (const [i, attachment] of message.attachments.entries()) lines.push(`[I attached ${attachment.filename}: ${await upload(threadId, attachment, downloads[i] as Uint8Array)}]`);
    deps.answers.follow(await chatRuns.start(origin, threadId, lines.join('\n\n')));
    return null;
  }

  return {
    /**
     * Handles a message until it is durably a run (or has its reply); returns that reply. A
     * refusal is answered, an outage waited out until `signal` aborts.
     */
    handle: (message: IncomingMessage, signal: AbortSignal): Promise<string | null> =>
      retry.untilDone(
        async () => {
          try {
            return await act(message, signal);
          } catch (err) {
            // A refusal (assistant gone, a file over a limit) will not change by trying again: say why.
            if (err instanceof WarrenError && err.statusCode < 500) return `Sorry, that did not work: ${err.message}`;
            if (err instanceof FileTooLargeError) return `That file is too large: files up to ${mib(fileLimit)} are accepted.`;
            // The platform refused for good (a file it will not hand over): say so rather than try forever.
            if (!signal.aborted && !retry.isRetryable(err)) return `Sorry, that did not work: ${err instanceof Error ? err.message : String(err)}`;
            throw err;
          }
        },
        signal,
        log,
        'handling a message',
      ),
  };
}

export type ChatMessages = ReturnType<typeof createChatMessages>;
