// Wire shapes of the generative UI routes, as LangGraph's server takes them.
import { Type, type Static } from 'typebox';

export const UiGraphParamsSchema = Type.Object({ graph: Type.String({ minLength: 1 }) });
export type UiGraphParams = Static<typeof UiGraphParamsSchema>;

export const UiFileParamsSchema = Type.Object({ graph: Type.String({ minLength: 1 }), file: Type.String({ minLength: 1 }) });
export type UiFileParams = Static<typeof UiFileParamsSchema>;

/** `POST /ui/{graph}`: the component to render (`message.name` of a UI message). */
export const UiComponentRequestSchema = Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
export type UiComponentRequest = Static<typeof UiComponentRequestSchema>;
