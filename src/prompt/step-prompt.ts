import { SKIP_TOOL_NAME } from '../domain/index.js';
import type { PreparedStep, StepPromptPort } from '../machines/index.js';
import type { ToolDeclaration } from '../model/index.js';
import type { ToolRegistry } from '../tools/index.js';
import {
  selectTools,
  TOOL_FINDER_NAME,
  type SelectionContext,
  type ToolSelectorOptions,
} from '../tools/selection/index.js';
import { DEFAULT_PERSONA } from './persona.js';
import { replyRules, SystemPrompt } from './system-prompt.js';
import { renderStableToolSection, renderStepGuidance } from './tiered-tool-section.js';

/**
 * The prompt of each model step with per-step tool selection (docs/design-notes.md, "Choosing
 * tools per step").
 * The system instruction is a fixed prefix (persona, required tools, rules), cached until
 * the registry changes; the optional tools that fit the conversation now come as separate
 * step guidance, and only they are declared (plus the required ones).
 *
 * Without the tool finder in the registry nothing could reach a withheld tool, so every
 * tool is offered and the prompt is the plain {@link SystemPrompt}.
 * @example
 * const stepPrompt = new StepPrompt(registry, persona);
 * const step = stepPrompt.forStep({ sourceKind: 'user', history, turnId, currentEventIds });
 * model.generate({ ...step, history, signal });
 */
export class StepPrompt implements StepPromptPort {
  private readonly fullPrompt: SystemPrompt;
  private cached: { readonly declarations: readonly ToolDeclaration[]; readonly prefix: string } | undefined;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly persona: string = DEFAULT_PERSONA,
    private readonly options: ToolSelectorOptions = {},
  ) {
    this.fullPrompt = new SystemPrompt(registry, persona);
  }

  /** The stable prefix alone: what a context cache holds with every declaration. */
  stablePrefix(): string {
    if (!this.selecting()) return this.fullPrompt.text();
    const declarations = this.registry.declarations();
    if (this.cached?.declarations !== declarations) {
      const rules = replyRules({ skipAvailable: this.registry.get(SKIP_TOOL_NAME) !== undefined });
      const section = renderStableToolSection(this.registry.list());
      this.cached = { declarations, prefix: [this.persona.trim(), section, rules].join('\n\n') };
    }
    return this.cached.prefix;
  }

  /** Selects the tools for this step of the conversation and builds what the model gets. */
  forStep(context: SelectionContext): PreparedStep {
    const tools = this.registry.list();
    const allTools = this.registry.declarations();
    const selection = selectTools(tools, context, this.options);
    const offered = new Set(selection.offered.map((tool) => tool.name));
    const systemInstruction = this.stablePrefix();
    if (!this.selecting()) return { systemInstruction, tools: allTools, allTools, selection };
    return {
      systemInstruction,
      stepGuidance: renderStepGuidance(tools.filter((tool) => tool.optional && offered.has(tool.name))),
      tools: allTools.filter((declaration) => offered.has(declaration.name)),
      allTools,
      selection,
    };
  }

  private selecting(): boolean {
    return this.registry.get(TOOL_FINDER_NAME) !== undefined;
  }
}
