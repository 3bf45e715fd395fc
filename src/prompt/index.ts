export { DEFAULT_PERSONA, loadPersona, PERSONA_FILE_VARIABLE } from './persona.js';
export { replyRules, SystemPrompt } from './system-prompt.js';
export { StepPrompt } from './step-prompt.js';
export { renderToolSection, ToolSection } from './tool-section.js';
export { renderStableToolSection, renderStepGuidance, STEP_GUIDANCE_HEADING } from './tiered-tool-section.js';
