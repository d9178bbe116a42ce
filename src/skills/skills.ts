// Skills: folders with a SKILL.md under skills/public (shipped) and skills/custom (installed).
// API side, here: `/api/skills` (skills.routes.ts, .schemas.ts, .service.ts), the catalog scan,
// SKILL.md's manifest and the .skill archive installer; `/api/skills/custom` (custom-skills.routes.ts,
// .service.ts), DeerFlow's editor, whose history is in Redis (skill-history-store.ts). The lead
// agent lists the enabled skills in its prompt (graphs/lead-agent/thread-context.ts) and reads
// them at /mnt/skills.
// This module is the feature's door: code outside src/skills/ imports only from here (the API's
// composition roots also reach its routes and service).
export { scanSkills } from './catalog.js';
export { createSkillHistoryStore } from './skill-history-store.js';
export type { SkillHistoryStore } from './skill-history-store.js';
