// `present_files`: the agent hands finished files to the user. The tool answers with a LangGraph
// Command that adds their virtual paths to `values.artifacts` (the state's reducer merges and
// de-duplicates) together with the tool message, so both land in one state update. Clients
// download them through the gateway's artifacts endpoint.
import { ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import { lstat } from 'node:fs/promises';
import { Type } from 'typebox';
import { VIRTUAL_USER_DATA } from '../../src/workspace/thread-files.js';
import { PathNotAFileError } from '../../src/workspace/workspace.errors.js';
import { describeFsError, type VirtualFs } from '../sandbox/virtual-fs.js';
import { defineTool, threadIdOf, toolCallIdOf } from './define-tool.js';
import { ToolPresentOutsideOutputsError } from './tools.errors.js';

const OUTPUTS = `${VIRTUAL_USER_DATA}/outputs`;
export const PRESENT_MAX_FILES = 50;

export function createPresentFilesTool(vfs: VirtualFs): StructuredToolInterface {
  const schema = Type.Object({
    filepaths: Type.Array(Type.String(), {
      minItems: 1,
      maxItems: PRESENT_MAX_FILES,
      description: `Virtual paths of existing files under ${OUTPUTS}/.`,
    }),
  });
  return defineTool(
    {
      name: 'present_files',
      description: `Show finished files to the user, who can then download them. Only files under ${OUTPUTS}/ can be presented: write or copy them there first.`,
      schema,
    },
    async ({ filepaths }, config) => {
      const threadId = threadIdOf(config);
      const toolCallId = toolCallIdOf(config);
      const artifacts: string[] = [];
      for (const requested of filepaths) {
        const resolved = await vfs.resolveExisting(threadId, requested);
        // Both the path as named and where it really leads must be in outputs: the artifact
        // list shows the former and the download serves the latter.
        if (!resolved.virtual.startsWith(`${OUTPUTS}/`) || resolved.area !== 'outputs') {
          throw new ToolPresentOutsideOutputsError(`${resolved.virtual} is not in ${OUTPUTS}/: write or copy it there first.`);
        }
        const stat = await lstat(resolved.real).catch((err: unknown) => {
          throw describeFsError(err, resolved.virtual);
        });
        if (!stat.isFile()) throw new PathNotAFileError(`${resolved.virtual} is not a file.`);
        if (!artifacts.includes(resolved.virtual)) artifacts.push(resolved.virtual);
      }
      const content = `Presented ${artifacts.length} file${artifacts.length === 1 ? '' : 's'} to the user:\n${artifacts.map((p) => `- ${p}`).join('\n')}`;
      return new Command({
        update: {
          artifacts,
          messages: [new ToolMessage({ content, tool_call_id: toolCallId, name: 'present_files' })],
        },
      });
    },
  );
}
