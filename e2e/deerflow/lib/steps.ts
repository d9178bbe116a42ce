// The pages of DeerFlow's UI (f1f4af99b) that issue #30 lists, walked as a user would. Each step
// does what the page is for and checks what the user should see; the monitor judges its
// requests. Selectors are the UI's visible texts and labels (its en-US locale). Run feedback has
// no step: at this commit no caller passes MessageListItem its `feedback`, so the thumbs never
// show, and the UI offers no way to send it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ANSWER_PREFIX, ARTIFACT_WORD, POLISHED_TEXT } from './model.ts';
import type { ExpectedAnswer } from './monitor.ts';

export interface WalkState {
  /** Folder for files the walk uploads (removed with the run). */
  scratch: string;
  /** Answers of 400 or more the running step found it should expect (cleared before each step). */
  expectedNow: ExpectedAnswer[];
  threadId?: string;
  agentName?: string;
}

export interface Step {
  name: string;
  /** Answers of 400 or more this flow asks for on purpose. */
  expected?: ExpectedAnswer[];
  /** The page is about #31's routes: their failures fail it. */
  ownsIssue31?: boolean;
  run(page: Page, state: WalkState): Promise<void>;
}

/**
 * Issue #31's routes (channels connected from the UI, integrations): the sidebar's Channels
 * block asks for them on every workspace page. They fail the Settings pages about them; on
 * other pages they are reported apart, so each page is judged on its own flow.
 */
export const ISSUE31_ROUTES: ExpectedAnswer[] = [
  { method: 'GET', path: /^\/api\/channels\/(providers|connections)$/ },
  { path: /^\/api\/integrations\// },
];

const INPUT = /how can i assist you/i;
const SHORT = 15_000;
const ANSWER = 45_000;

async function visible(locator: Locator, what: string, timeout = SHORT): Promise<Locator> {
  try {
    await locator.first().waitFor({ state: 'visible', timeout });
  } catch {
    throw new Error(`not shown within ${timeout / 1000} s: ${what}`);
  }
  return locator.first();
}

/** The answer the scripted model streams to `text` (see model.ts), complete. */
export function answerTo(text: string): RegExp {
  const said = text.slice(0, 80).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`you said "${said}"\\. Here is a streamed reply in several words\\.`);
}

/** Does `trigger` and waits until the run stream it starts has been read to its end. */
async function awaitRun(page: Page, trigger: () => Promise<void>): Promise<void> {
  const stream = page.waitForResponse((r) => r.request().method() === 'POST' && /\/runs\/stream$/.test(new URL(r.url()).pathname), { timeout: ANSWER });
  stream.catch(() => undefined); // when `trigger` throws, nobody waits for the stream any more
  await trigger();
  const answer = await stream.catch(() => {
    throw new Error(`no run stream started within ${ANSWER / 1000} s`);
  });
  if (answer.status() >= 400) throw new Error(`the run stream answered ${answer.status()}`);
  await answer.finished();
}

/** Types a message into the chat input and sends it; waits for the streamed answer to finish and show. */
async function sendAndAwaitAnswer(page: Page, text: string, answer: RegExp | string = answerTo(text)): Promise<void> {
  const input = await visible(page.getByPlaceholder(INPUT), 'the chat input');
  await input.fill(text);
  await awaitRun(page, () => input.press('Enter'));
  await visible(page.getByText(answer), `the model's streamed answer (${String(answer)})`, ANSWER);
}

/** Sends a composer command (`/goal …`, `/compact`) and checks the answer to the request it makes. */
async function slashCommand(page: Page, text: string, method: string, path: RegExp): Promise<void> {
  const input = await visible(page.getByPlaceholder(INPUT), 'the chat input');
  await input.fill(text);
  const request = page.waitForResponse((r) => r.request().method() === method && path.test(new URL(r.url()).pathname), { timeout: ANSWER });
  // The Submit button, not Enter: with the slash menu open, Enter picks the highlighted command.
  await page.getByRole('button', { name: 'Submit' }).last().click();
  const answer = await request.catch(() => {
    throw new Error(`${text}: no ${method} ${String(path)} was sent`);
  });
  if (answer.status() >= 400) throw new Error(`${text}: ${method} answered ${answer.status()}`);
}

function threadIdFrom(page: Page): string {
  const match = /\/chats\/([0-9a-f-]{36})/.exec(page.url());
  if (!match?.[1]) throw new Error(`no thread id in the address after sending (${page.url()})`);
  return match[1];
}

async function waitForThreadUrl(page: Page): Promise<string> {
  await page.waitForURL(/\/chats\/[0-9a-f-]{36}/, { timeout: ANSWER }).catch(() => {
    throw new Error(`the address never became /chats/<thread id> (${page.url()})`);
  });
  return threadIdFrom(page);
}

function needThread(state: WalkState): string {
  if (!state.threadId) throw new Error('no chat to work on (the new-chat step failed)');
  return state.threadId;
}

/** The sidebar's entry for a thread, with its "More" menu opened. */
async function openThreadMenu(page: Page, threadId: string): Promise<void> {
  const item = page.locator("[data-sidebar='menu-item']").filter({ has: page.locator(`a[href$='/chats/${threadId}']`) });
  await visible(item, 'the chat in the sidebar list');
  await item.first().hover();
  await item.first().getByRole('button', { name: 'More' }).click();
}

const settingsSections = ['appearance', 'notification', 'account', 'channels', 'integrations', 'memory', 'tools', 'skills', 'about'] as const;

/**
 * The Settings pages about #31's routes, and what each shows while Warren does not serve them
 * yet: the route answers 404, the UI's query gives up after its retries and says so. Once #31
 * lands the route answers, and the page must show its content instead (no "Loading…", no error).
 */
const BEFORE_ISSUE31: Partial<Record<(typeof settingsSections)[number], { probe: string; shows: string }>> = {
  channels: { probe: '/api/channels/providers', shows: 'Channel connections are unavailable right now.' },
  integrations: { probe: '/api/integrations/lark/status', shows: 'Failed to load integration status' },
};

function settingsStep(section: (typeof settingsSections)[number]): Step {
  const title = section[0]?.toUpperCase() + section.slice(1);
  const before31 = BEFORE_ISSUE31[section];
  return {
    name: `Settings › ${title}`,
    ownsIssue31: before31 !== undefined,
    async run(page, state) {
      // Asked outside the page (the monitor sees only the page's requests): is #31's route there yet?
      const missing = before31 ? (await page.request.get(before31.probe)).status() === 404 : false;
      if (missing) state.expectedNow.push(...ISSUE31_ROUTES.map((route) => ({ ...route, status: 404 })));
      await page.goto(`/workspace/chats/new?settings=${section}`);
      const dialog = await visible(page.getByRole('dialog'), 'the settings dialog');
      await visible(dialog.getByRole('button', { name: title }), `the ${title} section`);
      if (before31 && missing) {
        // The UI's query retries three times (about 7 s) before it shows the error.
        await visible(dialog.getByText(before31.shows), `"${before31.shows}" (#31's ${before31.probe} answers 404)`, 30_000);
        return;
      }
      // Loading placeholders must give way to the page's content.
      await dialog.getByText(/^Loading/).first().waitFor({ state: 'hidden', timeout: SHORT }).catch(() => {
        throw new Error(`the ${title} page still says "Loading…" after ${SHORT / 1000} s`);
      });
      if (before31 && (await dialog.getByText(before31.shows).count()) > 0) throw new Error(`the ${title} page says "${before31.shows}"`);
    },
  };
}

export const STEPS: Step[] = [
  {
    name: 'Landing page',
    async run(page) {
      await page.goto('/');
      await visible(page.locator('main'), "the landing page's content");
    },
  },
  {
    name: 'New chat: send, streamed answer',
    async run(page, state) {
      await page.goto('/workspace/chats/new');
      await sendAndAwaitAnswer(page, 'Hello from the end-to-end walk');
      state.threadId = await waitForThreadUrl(page);
    },
  },
  {
    name: 'Models (model picker)',
    async run(page) {
      const models = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/models', { timeout: SHORT });
      await page.goto('/workspace/chats/new');
      const answer = await models;
      const body = (await answer.json()) as { models?: { name?: string }[] };
      if (!body.models?.some((m) => m.name === 'scripted')) throw new Error(`/api/models does not list the configured model: ${JSON.stringify(body).slice(0, 200)}`);
      await visible(page.getByText('Scripted model'), 'the configured model in the input box');
    },
  },
  {
    name: 'Chats list',
    async run(page, state) {
      const threadId = needThread(state);
      await page.goto('/workspace/chats');
      await visible(page.locator(`a[href$='/chats/${threadId}']`), 'the new chat in the list');
    },
  },
  {
    name: 'Reopen chat (history)',
    async run(page, state) {
      await page.goto(`/workspace/chats/${needThread(state)}`);
      await visible(page.getByText('Hello from the end-to-end walk'), 'the earlier user message');
      await visible(page.getByText(answerTo('Hello from the end-to-end walk')), 'the earlier answer');
      const input = await visible(page.getByPlaceholder(INPUT), 'the chat input');
      if (!(await input.isEnabled())) throw new Error('the input of a reopened chat is disabled');
      await sendAndAwaitAnswer(page, 'A second message in the reopened chat');
    },
  },
  {
    name: 'Regenerate',
    async run(page, state) {
      await page.goto(`/workspace/chats/${needThread(state)}`);
      const turn = await visible(page.locator('[data-assistant-turn]').last(), 'an answer');
      await turn.hover();
      const button = turn.getByRole('button', { name: 'Regenerate' });
      await visible(button, 'the Regenerate button');
      await awaitRun(page, () => button.click());
      await visible(page.getByText(ANSWER_PREFIX), 'the regenerated answer', ANSWER);
    },
  },
  {
    name: 'Edit and rerun',
    async run(page, state) {
      await page.goto(`/workspace/chats/${needThread(state)}`);
      const question = await visible(page.getByText('A second message in the reopened chat', { exact: true }), 'the latest user message');
      await question.hover();
      await (await visible(page.getByRole('button', { name: 'Edit and rerun' }), 'the Edit and rerun button')).click();
      // The editor opens in place of the message, above the composer: the page's first textarea.
      const editor = await visible(page.locator('textarea').first(), 'the message editor');
      await editor.fill('An edited question');
      await awaitRun(page, () => page.getByRole('button', { name: 'Update and rerun' }).click());
      await visible(page.getByText(answerTo('An edited question')), 'the answer to the edited question', ANSWER);
    },
  },
  {
    name: 'Branch conversation',
    async run(page, state) {
      const threadId = needThread(state);
      await page.goto(`/workspace/chats/${threadId}`);
      const turn = await visible(page.locator('[data-assistant-turn]').first(), 'an answer');
      await turn.hover();
      const button = turn.getByRole('button', { name: /branch conversation/i });
      await visible(button, 'the Branch conversation button');
      await button.click();
      await visible(page.getByText('Conversation branch created'), 'the "branch created" notice');
    },
  },
  {
    name: 'Side chat',
    async run(page, state) {
      const question = 'A side question about that answer';
      await page.goto(`/workspace/chats/${needThread(state)}`);
      // Select the text of an answer: the toolbar that offers the side chat appears on mouse-up.
      const answer = await visible(page.locator('[data-assistant-turn]').last().getByText(ANSWER_PREFIX), 'an answer to quote');
      await answer.selectText();
      await answer.dispatchEvent('mouseup');
      await (await visible(page.getByRole('button', { name: 'Ask in side chat' }), 'the "Ask in side chat" button')).click();
      const panel = await visible(page.getByTestId('sidecar-panel'), 'the side chat panel');
      const input = await visible(panel.getByPlaceholder('Ask a deeper follow-up...'), 'the side chat input');
      await input.fill(question);
      // The side chat is a thread of its own, made on the first question (POST /api/threads).
      const created = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/threads', { timeout: ANSWER });
      await awaitRun(page, () => input.press('Enter'));
      if ((await created).status() >= 400) throw new Error(`creating the side chat's thread answered ${(await created).status()}`);
      await visible(panel.getByText(answerTo(question)), "the side chat's streamed answer", ANSWER);
      // The side chat stays apart: the side question shows nowhere outside its panel (whose own
      // turns are [data-assistant-turn] too: searching those alone matched the panel's answer).
      const times = (text: string) => text.split(question).length - 1;
      const leaked = times(await page.locator('body').innerText()) > times(await panel.innerText());
      if (leaked) throw new Error('the side question shows in the main conversation');
      // And the side run went to the side thread: the main thread's history has no side question.
      const history = await page.evaluate(async (id) => (await fetch(`/api/threads/${id}/messages`)).text(), needThread(state));
      if (history.includes(question)) throw new Error("the side question is in the main thread's history");
    },
  },
  {
    name: 'Goal (/goal)',
    async run(page, state) {
      await page.goto(`/workspace/chats/${needThread(state)}`);
      // A goal that is set starts a run towards it.
      await awaitRun(page, () => slashCommand(page, '/goal Finish the walk', 'PUT', /\/goal$/));
      await visible(page.getByText('Goal set.'), 'the "Goal set." notice');
      await slashCommand(page, '/goal clear', 'DELETE', /\/goal$/);
      await visible(page.getByText('Goal cleared.'), 'the "Goal cleared." notice');
    },
  },
  {
    name: 'Compact (/compact)',
    async run(page, state) {
      await page.goto(`/workspace/chats/${needThread(state)}`);
      await slashCommand(page, '/compact', 'POST', /\/compact$/);
      await visible(page.getByText(/Earlier context compacted|does not need compaction yet/), 'the compaction notice');
    },
  },
  {
    name: 'Input polish',
    async run(page) {
      await page.goto('/workspace/chats/new');
      const input = await visible(page.getByPlaceholder(INPUT), 'the chat input');
      await input.fill('make this text more better please');
      const polished = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/input-polish', { timeout: ANSWER });
      await page.getByTestId('polish-input-button').click();
      const answer = await polished;
      if (answer.status() >= 400) throw new Error(`input polish answered ${answer.status()}`);
      const until = Date.now() + SHORT;
      while ((await input.inputValue()) !== POLISHED_TEXT) {
        if (Date.now() > until) throw new Error(`the polished text never replaced the draft (the input holds "${await input.inputValue()}")`);
        await page.waitForTimeout(100);
      }
    },
  },
  {
    name: 'Uploads and artifacts',
    async run(page, state) {
      const file = path.join(state.scratch, 'e2e-notes.txt');
      writeFileSync(file, 'Notes uploaded by the end-to-end walk.\n');
      await page.goto('/workspace/chats/new');
      await visible(page.getByPlaceholder(INPUT), 'the chat input');
      await page.locator('input[type="file"]').first().setInputFiles(file);
      await visible(page.getByText('e2e-notes.txt'), 'the attached file in the input box');
      await sendAndAwaitAnswer(page, `Read my notes and write an ${ARTIFACT_WORD} report`, 'The report is ready.');
      await visible(page.getByText('e2e-notes.txt'), 'the uploaded file on the sent message');
      const card = await visible(page.getByText('e2e-report.md'), 'the presented file');
      await card.click();
      await visible(page.getByText('Written by the scripted model.'), "the artifact's content in the artifact panel");
    },
  },
  {
    name: 'Rename chat',
    async run(page, state) {
      const threadId = needThread(state);
      await page.goto('/workspace/chats/new');
      await openThreadMenu(page, threadId);
      await page.getByRole('menuitem', { name: 'Rename' }).click();
      const dialog = await visible(page.getByRole('dialog'), 'the rename dialog');
      await dialog.getByPlaceholder('Rename').fill('Renamed by the walk');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await visible(page.locator("[data-sidebar='menu-item']").getByText('Renamed by the walk'), 'the new name in the sidebar');
    },
  },
  {
    name: 'Delete chat',
    async run(page, state) {
      const threadId = needThread(state);
      await page.goto('/workspace/chats/new');
      await openThreadMenu(page, threadId);
      const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE' && r.url().includes(threadId), { timeout: SHORT });
      await page.getByRole('menuitem', { name: 'Delete' }).click();
      const answer = await deleted;
      if (answer.status() >= 400) throw new Error(`delete answered ${answer.status()}`);
      await page.locator(`a[href$='/chats/${threadId}']`).waitFor({ state: 'detached', timeout: SHORT });
      state.threadId = undefined;
    },
  },
  ...settingsSections.map(settingsStep),
  {
    name: 'Agents gallery',
    async run(page) {
      await page.goto('/workspace/agents');
      await visible(page.getByRole('link', { name: /new agent|create/i }).or(page.getByRole('button', { name: /new agent|create/i })), 'the create-agent action');
    },
  },
  {
    name: 'Create agent (bootstrap)',
    // Before it exists, the page asks for the agent and is told 404.
    expected: [{ method: 'GET', path: /^\/api\/agents\/e2e-agent-[a-z0-9-]+$/, status: 404 }],
    async run(page, state) {
      const name = `e2e-agent-${Date.now().toString(36)}`;
      await page.goto('/workspace/agents/new');
      await (await visible(page.getByPlaceholder('e.g. code-reviewer'), 'the name field')).fill(name);
      await awaitRun(page, () => page.getByRole('button', { name: 'Continue' }).click());
      await visible(page.getByText(/several words\./), 'the bootstrap conversation answer', ANSWER);
      await page.getByRole('button', { name: 'More actions' }).click();
      await awaitRun(page, () => page.getByRole('menuitem', { name: 'Save agent' }).click());
      await visible(page.getByText('Agent created!'), 'the "Agent created!" card', ANSWER);
      state.agentName = name;
    },
  },
  {
    name: 'Agent chat',
    async run(page, state) {
      if (!state.agentName) throw new Error('no agent to chat with (the create-agent step failed)');
      await page.goto(`/workspace/agents/${state.agentName}/chats/new`);
      await sendAndAwaitAnswer(page, 'Hello agent');
      await waitForThreadUrl(page);
    },
  },
  {
    name: 'Scheduled tasks',
    async run(page) {
      await page.goto('/workspace/scheduled-tasks');
      const form = await visible(page.getByTestId('scheduled-task-create-form'), 'the create form');
      await form.getByPlaceholder('Task title').fill('E2E task');
      await form.getByPlaceholder('Prompt').fill('Say hello');
      await form.getByRole('button', { name: 'Create' }).click();
      await visible(page.getByTestId('scheduled-task-list').getByText('E2E task'), 'the new task in the list');
      await page.getByTestId('scheduled-task-list').getByText('E2E task').first().click();
      const detail = await visible(page.getByTestId('scheduled-task-detail'), 'the task detail');
      await detail.getByRole('button', { name: 'Pause' }).click();
      await visible(detail.getByRole('button', { name: 'Resume' }), 'Resume after Pause');
      await detail.getByRole('button', { name: 'Resume' }).click();
      await visible(detail.getByRole('button', { name: 'Pause' }), 'Pause after Resume');
      await detail.getByRole('button', { name: 'Trigger now' }).click();
      await visible(page.getByTestId('scheduled-task-runs').getByText(/[1-9]\d* runs?/), 'the triggered run', ANSWER);
    },
  },
];

/** The walk with Warren's accounts on (issue #31): first-run set-up, a chat as that person, sign out. */
const ADMIN = { email: 'admin@example.com', password: 'an admin passphrase' };

const SIGN_OUT: Step = {
  name: 'Sign out',
  // After signing out, the UI's own probes of the session answer 401.
  expected: [{ path: /^\/api\/v1\/auth\/me$/, status: 401 }],
  async run(page) {
    await page.goto('/workspace/chats/new?settings=account');
    const dialog = await visible(page.getByRole('dialog'), 'the settings dialog');
    await (await visible(dialog.getByRole('button', { name: 'Sign Out' }), 'the Sign Out button')).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/workspace'), { timeout: SHORT });
    await page.goto('/workspace');
    await page.waitForURL(/\/login/, { timeout: SHORT });
  },
};

/**
 * Settings › Channels as the signed-in admin (issue #31): the page lists Warren's platforms with
 * the session's cookie (no 401, no "unavailable"). With no platform configured the UI shows no
 * connect code (its Connect asks for the platform's credentials first, `providerNeedsRuntimeConfig`),
 * so the step checks that: Telegram says "Not configured" and Connect opens the admin's
 * credentials dialog.
 */
const CHANNELS_SIGNED_IN: Step = {
  ...settingsStep('channels'),
  name: 'Settings › Channels (signed in)',
  async run(page, state) {
    await settingsStep('channels').run(page, state);
    const dialog = page.getByRole('dialog').first();
    const telegram = dialog.locator("[data-slot='item']").filter({ hasText: 'Telegram' });
    await visible(telegram.getByText('Not configured'), 'Telegram marked "Not configured"');
    await (await visible(telegram.getByRole('button', { name: 'Connect' }), "Telegram's Connect button")).click();
    const setup = await visible(page.getByRole('dialog', { name: 'Connect Telegram' }), 'the "Connect Telegram" credentials dialog');
    await visible(setup.getByText('Bot token'), 'the Bot token field');
    await page.keyboard.press('Escape');
  },
};

/** Issue #31's walk with DeerFlow's sign-in on: set-up, sign out, sign in, chat, Settings › Channels, sign out. */
export const SIGN_IN_STEPS: Step[] = [
  {
    name: 'Set-up (first admin account)',
    async run(page) {
      await page.goto('/workspace');
      await page.waitForURL(/\/setup/, { timeout: SHORT });
      await (await visible(page.locator('#email'), 'the set-up form')).fill(ADMIN.email);
      await page.locator('#password').fill(ADMIN.password);
      await page.locator('#confirmPassword').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Create Admin Account' }).click();
      await page.waitForURL(/\/workspace/, { timeout: SHORT });
    },
  },
  SIGN_OUT,
  {
    name: 'Sign in',
    // A wrong password first: the page shows the message of DeerFlow's `{detail: {code, message}}`.
    expected: [{ method: 'POST', path: /^\/api\/v1\/auth\/login\/local$/, status: 401 }],
    async run(page) {
      await page.goto('/login');
      await (await visible(page.locator('#email'), 'the sign-in form')).fill(ADMIN.email);
      await page.locator('#password').fill('not the admin passphrase');
      await page.getByRole('button', { name: 'Sign In', exact: true }).click();
      await visible(page.getByText('Incorrect email or password.'), "the sign-in error's message");
      await page.locator('#password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign In', exact: true }).click();
      await page.waitForURL(/\/workspace/, { timeout: SHORT });
    },
  },
  ...STEPS.filter((step) => step.name === 'New chat: send, streamed answer'),
  CHANNELS_SIGNED_IN,
  SIGN_OUT,
];
