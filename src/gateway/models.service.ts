// Models come from config.yaml. Only whitelisted fields leave: keys and addresses never do.
import type { ModelConfig } from '../config/app-config.schemas.js';
import type { GatewayDeps } from './gateway-deps.js';
import { ModelNotFoundError } from './gateway.errors.js';
import type { ModelDetail, ModelList, ModelSummary } from './models.schemas.js';

function summary(model: ModelConfig): ModelSummary {
  return {
    name: model.name,
    display_name: model.display_name ?? model.name,
    supports_thinking: model.supports_thinking,
    supports_vision: model.supports_vision,
  };
}

export function createModelsService(deps: Pick<GatewayDeps, 'config'>) {
  return {
    list: (): ModelList => ({ models: deps.config.models.map(summary) }),

    get(name: string): ModelDetail {
      const model = deps.config.models.find((m) => m.name === name);
      if (!model) throw new ModelNotFoundError(`Model '${name}' not found.`);
      return { ...summary(model), model: model.model, max_tokens: model.max_tokens ?? null };
    },
  };
}

export type ModelsService = ReturnType<typeof createModelsService>;
