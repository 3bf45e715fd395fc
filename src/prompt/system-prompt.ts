import type { ToolRegistry } from '../tools/index.js';

export const DEFAULT_PERSONA =
  'You are kaiwa, a friendly assistant in LINE chats. Answer briefly and warmly, in the language the user writes in.';

/** The reply rules of seed 000: the model decides whether to reply, and replies only through `reply`. */
export const REPLY_RULES = `# How to answer
- Your text output is never shown to anyone. The only way to send a message is the \`reply\` tool.
- When a reply is wanted, call \`reply\` once with the whole message.
- When no reply is needed (for example people in a group talking to each other), do not call \`reply\`; call \`skip\` with the reason.
- Call \`reply\` at most once per turn.
- Messages are shown as "[name, time] text"; in groups, several people speak.`;

/**
 * The system prompt: persona, reply rules and a section listing the tools, generated from
 * the registry. Cached until the registry changes.
 */
export class SystemPrompt {
  private cached: { declarations: unknown; text: string } | undefined;

  constructor(
    private readonly tools: ToolRegistry,
    private readonly persona: string = DEFAULT_PERSONA,
  ) {}

  text(): string {
    // The registry hands out the same declarations array until a tool is registered.
    const declarations = this.tools.declarations();
    if (this.cached?.declarations !== declarations) {
      this.cached = { declarations, text: this.build() };
    }
    return this.cached.text;
  }

  private build(): string {
    const toolLines = this.tools
      .list()
      .map((tool) => `- \`${tool.name}\` (${tool.optional ? 'optional' : 'required'}): ${tool.description}`);
    return [this.persona, REPLY_RULES, `# Tools\n${toolLines.join('\n')}`].join('\n\n');
  }
}
