// present_files (a Command that updates artifacts and messages) and view_image (image content
// blocks), invoked directly and through LangGraph's ToolNode in a one-node graph.
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Annotation, END, isCommand, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxTools } from '../../workers/tools/sandbox-tools.js';
import { liftToolImages } from '../../graphs/lead-agent/tool-images.js';
import { createViewImageTool, sniffImage, VIEW_IMAGE_MAX_BYTES } from '../../workers/tools/view-image.js';
import { callTool, callToolWithId, createTestHome, findTool, sandboxConfig, type TestHome } from '../sandbox/support.js';

const A = 'present-a';
// The smallest valid PNG: 1×1 transparent pixel.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

let t: TestHome;
let present: StructuredToolInterface;
let viewImage: StructuredToolInterface;

beforeAll(async () => {
  t = await createTestHome('present');
  const { tools } = await createSandboxTools({ files: t.files, skillsDir: t.skillsDir, sandbox: sandboxConfig(), log: t.log, bwrapPath: null });
  present = findTool(tools, 'present_files');
  viewImage = createViewImageTool({ files: t.files, skillsDir: t.skillsDir });
  const outputs = await t.files.ensureArea(A, 'outputs');
  const workspace = await t.files.ensureArea(A, 'workspace');
  await writeFile(path.join(outputs, 'report.md'), '# Report');
  await mkdir(path.join(outputs, 'charts'));
  await writeFile(path.join(outputs, 'charts', 'pie.png'), PNG);
  await writeFile(path.join(workspace, 'draft.md'), 'draft');
  await symlink('../workspace/draft.md', path.join(outputs, 'draft-link.md'));
  await writeFile(path.join(workspace, 'fake.png'), 'not an image');
  await writeFile(path.join(workspace, 'huge.png'), PNG);
  await truncate(path.join(workspace, 'huge.png'), VIEW_IMAGE_MAX_BYTES + 1);
});

afterAll(async () => {
  await t.cleanup();
});

describe('present_files', () => {
  it('answers a tool call with a Command that adds the artifacts and the tool message', async () => {
    const result = await callToolWithId(present, { filepaths: ['/mnt/user-data/outputs/report.md', '/mnt/user-data/outputs//charts/pie.png', '/mnt/user-data/outputs/report.md'] }, A, 'call_42');
    expect(isCommand(result)).toBe(true);
    const update = (result as { update: { artifacts: string[]; messages: ToolMessage[] } }).update;
    expect(update.artifacts).toEqual(['/mnt/user-data/outputs/report.md', '/mnt/user-data/outputs/charts/pie.png']);
    expect(update.messages).toHaveLength(1);
    expect(update.messages[0]).toBeInstanceOf(ToolMessage);
    expect(update.messages[0]).toMatchObject({ tool_call_id: 'call_42', name: 'present_files' });
    expect(update.messages[0]?.content).toContain('Presented 2 files');
  });

  it('refuses files outside outputs, links leading out of it, folders and missing files', async () => {
    await expect(callToolWithId(present, { filepaths: ['/mnt/user-data/workspace/draft.md'] }, A)).rejects.toThrow(/is not in \/mnt\/user-data\/outputs/);
    await expect(callToolWithId(present, { filepaths: ['/mnt/user-data/outputs/draft-link.md'] }, A)).rejects.toThrow(/is not in/);
    await expect(callToolWithId(present, { filepaths: ['/mnt/user-data/outputs/charts'] }, A)).rejects.toThrow(/is not a file/);
    await expect(callToolWithId(present, { filepaths: ['/mnt/user-data/outputs/none.md'] }, A)).rejects.toThrow(/does not exist/);
    await expect(callToolWithId(present, { filepaths: ['/etc/passwd'] }, A)).rejects.toThrow(/outside the sandbox/);
    await expect(callToolWithId(present, { filepaths: [] }, A)).rejects.toThrow(/did not match/);
  });

  it('needs a tool call id', async () => {
    await expect(callTool(present, { filepaths: ['/mnt/user-data/outputs/report.md'] }, A)).rejects.toThrow(/tool_call_id/);
  });

  it('updates values.artifacts and the messages when run by ToolNode', async () => {
    const State = Annotation.Root({
      ...MessagesAnnotation.spec,
      artifacts: Annotation<string[]>({ reducer: (a, b) => [...new Set([...a, ...b])], default: () => [] }),
    });
    const graph = new StateGraph(State).addNode('tools', new ToolNode([present])).addEdge(START, 'tools').addEdge('tools', END).compile();
    const call = { id: 'call_7', name: 'present_files', args: { filepaths: ['/mnt/user-data/outputs/report.md'] }, type: 'tool_call' as const };
    const state = await graph.invoke({ messages: [new AIMessage({ content: '', tool_calls: [call] })], artifacts: ['/mnt/user-data/outputs/old.md'] }, { configurable: { thread_id: A } });
    expect(state.artifacts).toEqual(['/mnt/user-data/outputs/old.md', '/mnt/user-data/outputs/report.md']);
    const last = state.messages.at(-1);
    expect(last).toBeInstanceOf(ToolMessage);
    expect((last as ToolMessage).tool_call_id).toBe('call_7');
  });
});

describe('view_image', () => {
  it('returns the image as a data URL content block inside the tool message', async () => {
    const message = await callToolWithId(viewImage, { image_path: '/mnt/user-data/outputs/charts/pie.png' }, A, 'call_img');
    expect(message).toBeInstanceOf(ToolMessage);
    const content = (message as ToolMessage).content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(content[0]).toEqual({ type: 'text', text: `Image /mnt/user-data/outputs/charts/pie.png (image/png, ${PNG.length} bytes):` });
    expect(content[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } });
  });

  it('refuses files that are not images, too large, or outside the sandbox', async () => {
    await expect(callTool(viewImage, { image_path: '/mnt/user-data/workspace/fake.png' }, A)).rejects.toThrow(/is not a PNG, JPEG, GIF or WebP image/);
    await expect(callTool(viewImage, { image_path: '/mnt/user-data/workspace/huge.png' }, A)).rejects.toThrow(/at most 5242880/);
    await expect(callTool(viewImage, { image_path: '/mnt/user-data/outputs/charts' }, A)).rejects.toThrow(/is not a file/);
    await expect(callTool(viewImage, { image_path: '/mnt/user-data/outputs/none.png' }, A)).rejects.toThrow(/does not exist/);
    await expect(callTool(viewImage, { image_path: '/usr/share/pixmaps/debian-logo.png' }, A)).rejects.toThrow(/outside the sandbox/);
  });

  it('recognises images by their bytes', () => {
    expect(sniffImage(PNG)).toBe('image/png');
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImage(Buffer.from('GIF89a...'))).toBe('image/gif');
    expect(sniffImage(Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe('image/webp');
    expect(sniffImage(Buffer.from('<svg/>'))).toBeNull();
  });
});

describe('liftToolImages', () => {
  it('moves images out of tool messages into one user message after the tool-message run', async () => {
    const image = await callToolWithId(viewImage, { image_path: '/mnt/user-data/outputs/charts/pie.png' }, A, 'call_a');
    const messages = [
      new AIMessage({ content: '', tool_calls: [{ id: 'call_a', name: 'view_image', args: {} }, { id: 'call_b', name: 'ls', args: {} }] }),
      image as ToolMessage,
      new ToolMessage({ content: 'dir   x/', tool_call_id: 'call_b' }),
      new AIMessage('It is a pixel.'),
    ];
    const lifted = liftToolImages(messages);
    expect(lifted.map((m) => m.getType())).toEqual(['ai', 'tool', 'tool', 'human', 'ai']);
    const tool = lifted[1] as ToolMessage;
    expect(tool.tool_call_id).toBe('call_a');
    expect(JSON.stringify(tool.content)).not.toContain('base64');
    expect(JSON.stringify(tool.content)).toContain('the image follows');
    expect(JSON.stringify(lifted[3]?.content)).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
    expect(liftToolImages([messages[3] as AIMessage])).toEqual([messages[3]]);
  });
});
