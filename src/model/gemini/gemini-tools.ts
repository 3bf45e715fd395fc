import type { Tool } from '@google/genai';
import type { ToolDeclaration } from '../model-port.js';

/**
 * The port's tool declarations as one Gemini `Tool`. The schemas go as
 * `parametersJsonSchema` / `responseJsonSchema`: plain JSON Schema, which Gemini accepts
 * as is (the older `parameters` field takes only its OpenAPI subset).
 */
export function toGeminiTools(declarations: readonly ToolDeclaration[]): Tool[] {
  if (declarations.length === 0) return [];
  return [
    {
      functionDeclarations: declarations.map((declaration) => ({
        name: declaration.name,
        description: declaration.description,
        parametersJsonSchema: declaration.parameters,
        ...(declaration.response && { responseJsonSchema: declaration.response }),
      })),
    },
  ];
}
