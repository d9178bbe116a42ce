// The causes the graph registry refuses with; the runtime and run admission throw them too.
import { defineError } from '../src/errors.js';

/** No configured graph has that id (nor, where one is looked up by it, an assistant). */
export const GraphNotFoundError = defineError('WARREN_GRAPH_NOT_FOUND', 404);

/** The project's graph (its module or its factory, with the assistant's config) threw while being built. */
export const GraphBuildFailedError = defineError('WARREN_GRAPH_BUILD_FAILED', 422);
