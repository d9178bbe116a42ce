// The causes the generative UI routes (`/ui/{graph}`, at the root and under /api/langgraph) refuse with.
import { defineError } from '../errors.js';

/** No component bundle for that graph: langgraph.json's `ui` does not name it. */
export const UiNotFoundError = defineError('WARREN_UI_NOT_FOUND', 404);
/** The graph's bundle has no file of that name. */
export const UiFileNotFoundError = defineError('WARREN_UI_FILE_NOT_FOUND', 404);
/** The graph's components have none of that name (its default export does not map it). */
export const UiComponentNotFoundError = defineError('WARREN_UI_COMPONENT_NOT_FOUND', 404);
