import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

// A local server speaking the Gemini Developer API (v1beta) as `@google/genai` 2.32 calls it:
//   POST   /v1beta/models/{model}:generateContent     POST /v1beta/models/{model}:countTokens
//   POST   /v1beta/cachedContents          GET | PATCH | DELETE /v1beta/cachedContents/{id}
// and Vertex AI in express mode (an API key, no project):
//   POST   /v1beta1/publishers/google/models/{model}:generateContent   POST /v1beta1/cachedContents
// It is strict where Gemini is strict, so that adapter bugs fail here and not in production:
// `cachedContent` with systemInstruction/tools/toolConfig, a function call turn that follows
// neither a user turn nor a function response turn, function responses that answer no call,
// replayed function calls that lost (or changed) their thought signature, a part with no data
// (`{}`, a thought signature alone), function call arguments that are no object, inline data of
// a type the backend does not take, a function declared under a name Gemini does not take, and
// a request over 20 MB are 400s, with Gemini's messages. Stricter than documented on purpose: a
// string holding a lone UTF-16 surrogate (JSON can escape one, `"\ud83d"`) is a 400 too — the
// API's strings are protobuf strings, which must be UTF-8, and UTF-8 has no encoding for it.
// It counts tokens the way the tests need Gemini to: four ASCII characters per token, but one
// token per character of other scripts (Japanese), so characters ÷ 4 undercounts like it does
// against the real API.

/** One HTTP request as it arrived. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON; `undefined` for an empty body. */
  readonly body: unknown;
}

/** The wire shapes the fake reads (a subset of Gemini's). */
export interface WirePart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
  inlineData?: { mimeType: string; data: string };
}
export interface WireContent {
  role?: string;
  parts?: WirePart[];
}
export interface GenerateContentBody {
  contents?: WireContent[];
  systemInstruction?: WireContent;
  tools?: { functionDeclarations?: Record<string, unknown>[] }[];
  toolConfig?: unknown;
  cachedContent?: string;
  generationConfig?: Record<string, unknown>;
}

/**
 * What the fake answers: JSON, a raw body (malformed on purpose), nothing until the client
 * gives up, or a connection reset.
 */
export type FakeAnswer =
  | {
      readonly status?: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
      readonly delayMs?: number;
    }
  | { readonly raw: string; readonly status?: number; readonly contentType?: string }
  | { readonly hang: true }
  | { readonly reset: true };

/** A scripted generateContent answer, or a function of the (already validated) request. */
export type ScriptedAnswer = FakeAnswer | ((body: GenerateContentBody) => FakeAnswer);

export interface FakeGeminiServerOptions {
  /** The `x-goog-api-key` the fake accepts. Default `test-key`. */
  readonly apiKey?: string;
  /** Caches smaller than this (in {@link fakeTokenCount} tokens) are refused, like Gemini. Default 4096. */
  readonly minCacheTokens?: number;
  /** The fake's clock for cache expiry. Default `Date.now`. */
  readonly now?: () => number;
}

interface StoredCache {
  readonly name: string;
  readonly model: string;
  readonly displayName?: string;
  readonly systemInstruction?: WireContent;
  readonly tools?: unknown[];
  readonly toolConfig?: unknown;
  readonly createTime: string;
  expireTime: number;
  readonly totalTokenCount: number;
}

export class FakeGeminiServer {
  readonly requests: RecordedRequest[] = [];
  /** Every 400 the fake's own validation produced, by message. */
  readonly rejections: string[] = [];
  private readonly script: ScriptedAnswer[] = [];
  private readonly caches = new Map<string, StoredCache>();
  /** Thought signatures handed out, by function call identity. */
  private readonly issuedSignatures = new Map<string, string>();
  private readonly apiKey: string;
  private readonly minCacheTokens: number;
  private readonly now: () => number;
  /** Cache creations wait for this before they answer (a slow Gemini). */
  cacheCreationDelayMs = 0;
  /** Answers for the next cache creations, served before any cache is made (a failing Gemini). */
  readonly cacheCreationFailures: FakeAnswer[] = [];
  /** Answers every generateContent request once the script is spent (a model that always answers). */
  fallback: ScriptedAnswer | undefined;

  private constructor(
    private readonly server: Server,
    options: FakeGeminiServerOptions,
  ) {
    this.apiKey = options.apiKey ?? 'test-key';
    this.minCacheTokens = options.minCacheTokens ?? 4096;
    this.now = options.now ?? Date.now;
  }

  /** Listens on 127.0.0.1 on a free port. */
  static async start(options: FakeGeminiServerOptions = {}): Promise<FakeGeminiServer> {
    const server = createServer();
    const fake = new FakeGeminiServer(server, options);
    server.on(
      'request',
      (request: IncomingMessage, response: ServerResponse) => void fake.handle(request, response),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queues generateContent answers, served in order. */
  enqueue(...answers: ScriptedAnswer[]): this {
    this.script.push(...answers);
    return this;
  }

  /** Bodies of the generateContent requests, in order (rejected ones included). */
  get generateBodies(): GenerateContentBody[] {
    return this.requests
      .filter((request) => request.path.endsWith(':generateContent'))
      .map((request) => request.body as GenerateContentBody);
  }

  requestsTo(method: string, pathPrefix: string): RecordedRequest[] {
    return this.requests.filter(
      (request) => request.method === method && request.path.startsWith(pathPrefix),
    );
  }

  /** The names of the caches that exist now. */
  get cacheNames(): string[] {
    return [...this.caches.values()]
      .filter((cache) => cache.expireTime > this.now())
      .map((cache) => cache.name);
  }

  /** Forgets every cache, as if they expired or were deleted elsewhere. */
  dropCaches(): void {
    this.caches.clear();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const method = request.method ?? 'GET';
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      this.requests.push({ method, path, headers: request.headers, body: text });
      return this.send(response, invalid('Invalid JSON payload received.'));
    }
    this.requests.push({ method, path, headers: request.headers, body });
    const illFormed = illFormedStringAt(body, '');
    if (illFormed !== undefined) {
      const message = `Invalid JSON payload received. Invalid UTF-8 in string at '${illFormed}'.`;
      this.rejections.push(message);
      return this.send(response, invalid(message));
    }
    if (request.headers['x-goog-api-key'] !== this.apiKey) {
      return this.send(
        response,
        apiError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'),
      );
    }
    if (text.length > REQUEST_LIMIT_BYTES) {
      return this.send(
        response,
        invalid(`Request payload size exceeds the limit: ${REQUEST_LIMIT_BYTES} bytes.`),
      );
    }
    const generate = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(path);
    if (method === 'POST' && generate)
      return this.send(response, this.generateContent(generate[1]!, body as GenerateContentBody, 'gemini'));
    const vertexGenerate = /^\/v1beta1\/publishers\/google\/models\/([^/:]+):generateContent$/.exec(path);
    if (method === 'POST' && vertexGenerate) {
      return this.send(
        response,
        this.generateContent(vertexGenerate[1]!, body as GenerateContentBody, 'vertex'),
      );
    }
    const count = /^\/v1beta\/models\/([^/:]+):countTokens$/.exec(path);
    if (method === 'POST' && count) return this.send(response, countTokens(body));
    if (method === 'POST' && (path === '/v1beta/cachedContents' || path === '/v1beta1/cachedContents')) {
      if (this.cacheCreationDelayMs > 0) await sleepFor(this.cacheCreationDelayMs);
      return this.send(response, this.cacheCreationFailures.shift() ?? this.createCache(body));
    }
    const cache = /^\/v1beta\/(cachedContents\/[^/]+)$/.exec(path);
    if (cache) return this.send(response, this.cacheResource(method, cache[1]!, body));
    return this.send(response, apiError(404, 'NOT_FOUND', `fake gemini: no route for ${method} ${path}`));
  }

  private generateContent(model: string, body: GenerateContentBody, backend: Backend): FakeAnswer {
    const problem = this.validateGenerate(model, body, backend);
    if (problem) {
      this.rejections.push(problem.message);
      return problem.answer;
    }
    const next = this.script.shift() ?? this.fallback;
    if (next === undefined) return invalid('FakeGeminiServer: no scripted answer left');
    const answer = typeof next === 'function' ? next(body) : next;
    if ('body' in answer) this.rememberSignatures(answer.body, body);
    return answer;
  }

  private validateGenerate(
    model: string,
    body: GenerateContentBody,
    backend: Backend,
  ): { message: string; answer: FakeAnswer } | undefined {
    const reject = (message: string, answer: FakeAnswer = invalid(message)) => ({ message, answer });
    const contents = body.contents ?? [];
    if (contents.length === 0) return reject('* GenerateContentRequest.contents: contents is not specified');
    if (body.cachedContent !== undefined) {
      if (body.systemInstruction !== undefined || body.tools !== undefined || body.toolConfig !== undefined) {
        return reject(
          'CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.\n\nProposed fix: move those values to CachedContent from GenerateContent request.',
        );
      }
      const cache = this.liveCache(body.cachedContent);
      if (!cache) {
        const message = 'CachedContent not found (or permission denied)';
        return reject(message, apiError(403, 'PERMISSION_DENIED', message));
      }
      if (cache.model !== `models/${model}`) {
        return reject(
          `Model used by GenerateContent request (models/${model}) and CachedContent (${cache.model}) has to be the same.`,
        );
      }
    }
    const declarationProblem = checkFunctionDeclarations(body.tools, 'GenerateContentRequest');
    if (declarationProblem) return reject(declarationProblem);
    for (const [index, content] of contents.entries()) {
      if (content.role !== 'user' && content.role !== 'model')
        return reject(`contents[${index}]: role must be user or model`);
      if (!content.parts || content.parts.length === 0)
        return reject(`contents[${index}]: must include at least one parts field`);
      const problem =
        checkPartData(content, index) ??
        checkCallTurnPosition(contents, index) ??
        this.checkFunctionResponses(contents, index) ??
        this.checkThoughtSignatures(content) ??
        checkInlineData(content, backend);
      if (problem) return reject(problem);
    }
    return undefined;
  }

  /** A function response turn must answer the call turn right before it, call for call. */
  private checkFunctionResponses(contents: WireContent[], index: number): string | undefined {
    const responses = (contents[index]!.parts ?? []).flatMap((part) =>
      part.functionResponse ? [part.functionResponse] : [],
    );
    if (responses.length === 0) return undefined;
    const previous = contents[index - 1];
    const calls =
      previous?.role === 'model'
        ? (previous.parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []))
        : [];
    if (calls.length === 0) {
      return 'Please ensure that function response turn comes immediately after a function call turn.';
    }
    if (calls.length !== responses.length) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
    const unanswered = [...calls];
    for (const response of responses) {
      const match = unanswered.findIndex(
        (call) => call.name === response.name && (response.id === undefined || response.id === call.id),
      );
      if (match < 0)
        return `function response ${response.name}${response.id ? ` (id ${response.id})` : ''} matches no function call`;
      unanswered.splice(match, 1);
    }
    return undefined;
  }

  /** Gemini 3 refuses a replayed function call without the signature it came with. */
  private checkThoughtSignatures(content: WireContent): string | undefined {
    if (content.role !== 'model') return undefined;
    for (const [position, part] of (content.parts ?? []).entries()) {
      if (!part.functionCall) continue;
      const issued = this.issuedSignatures.get(callIdentity(part.functionCall));
      if (issued === undefined) continue;
      if (part.thoughtSignature === undefined) {
        return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${part.functionCall.name}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
      }
      if (part.thoughtSignature !== issued) return 'Corrupted thought signature.';
    }
    return undefined;
  }

  private rememberSignatures(answer: unknown, request: GenerateContentBody): void {
    const parts =
      (answer as { candidates?: { content?: WireContent }[] } | undefined)?.candidates?.[0]?.content?.parts ??
      [];
    for (const part of parts) {
      if (part.functionCall && part.thoughtSignature) {
        this.issuedSignatures.set(callIdentity(part.functionCall), part.thoughtSignature);
      }
    }
    // Like Gemini, report the cached tokens of a cached request.
    const cache = request.cachedContent ? this.liveCache(request.cachedContent) : undefined;
    const usage = (answer as { usageMetadata?: Record<string, unknown> } | undefined)?.usageMetadata;
    if (cache && usage && usage.cachedContentTokenCount === undefined)
      usage.cachedContentTokenCount = cache.totalTokenCount;
  }

  private createCache(body: unknown): FakeAnswer {
    const request = body as Partial<StoredCache> & { ttl?: string; contents?: WireContent[] };
    if (
      typeof request.model !== 'string' ||
      !/^(models|projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models)\//.test(request.model)
    ) {
      return invalid('model must be of the form models/{model}');
    }
    if (/\/undefined\//.test(request.model)) {
      return invalid(`Invalid resource name: ${request.model}`);
    }
    const ttlMs = parseTtl(request.ttl);
    if (ttlMs === undefined) return invalid('ttl or expire_time is required');
    const declarationProblem = checkFunctionDeclarations(
      request.tools as GenerateContentBody['tools'],
      'CachedContent',
    );
    if (declarationProblem) return invalid(declarationProblem);
    const totalTokenCount =
      fakeTokenCount(textOf(request.systemInstruction ? [request.systemInstruction] : [])) +
      fakeTokenCount(JSON.stringify(request.tools ?? [])) +
      fakeTokenCount(textOf(request.contents ?? []));
    if (totalTokenCount < this.minCacheTokens) {
      return invalid(
        `Cached content is too small. total_token_count=${totalTokenCount}, min_total_token_count=${this.minCacheTokens}`,
      );
    }
    const cache: StoredCache = {
      name: `cachedContents/${randomUUID().replaceAll('-', '').slice(0, 12)}`,
      model: request.model,
      ...(request.displayName && { displayName: request.displayName }),
      ...(request.systemInstruction && { systemInstruction: request.systemInstruction }),
      ...(request.tools && { tools: request.tools }),
      ...(request.toolConfig !== undefined && { toolConfig: request.toolConfig }),
      createTime: new Date(this.now()).toISOString(),
      expireTime: this.now() + ttlMs,
      totalTokenCount,
    };
    this.caches.set(cache.name, cache);
    return { body: cacheMetadata(cache) };
  }

  private cacheResource(method: string, name: string, body: unknown): FakeAnswer {
    const cache = this.liveCache(name);
    if (!cache) return apiError(403, 'PERMISSION_DENIED', 'CachedContent not found (or permission denied)');
    if (method === 'GET') return { body: cacheMetadata(cache) };
    if (method === 'DELETE') {
      this.caches.delete(name);
      return { body: {} };
    }
    if (method === 'PATCH') {
      const ttlMs = parseTtl((body as { ttl?: string } | undefined)?.ttl);
      if (ttlMs === undefined) return invalid('ttl or expire_time is required');
      cache.expireTime = this.now() + ttlMs;
      return { body: cacheMetadata(cache) };
    }
    return apiError(405, 'METHOD_NOT_ALLOWED', `${method} is not supported`);
  }

  private liveCache(name: string): StoredCache | undefined {
    const cache = this.caches.get(name);
    return cache && cache.expireTime > this.now() ? cache : undefined;
  }

  private send(response: ServerResponse, answer: FakeAnswer): void {
    if ('hang' in answer) return; // closed by the client's abort or by close()
    if ('reset' in answer) {
      response.socket?.destroy();
      return;
    }
    if ('raw' in answer) {
      response.writeHead(answer.status ?? 200, {
        'content-type': answer.contentType ?? 'application/json; charset=UTF-8',
      });
      response.end(answer.raw);
      return;
    }
    const write = () => {
      if (response.destroyed) return;
      response.writeHead(answer.status ?? 200, {
        'content-type': 'application/json; charset=UTF-8',
        ...answer.headers,
      });
      response.end(JSON.stringify(answer.body));
    };
    if (answer.delayMs) setTimeout(write, answer.delayMs).unref();
    else write();
  }
}

/** How the fake recognises a replayed call: Gemini's id, else name and arguments. */
function callIdentity(call: { id?: string; name: string; args?: Record<string, unknown> }): string {
  return call.id ? `id:${call.id}` : `call:${call.name}:${stableJson(call.args ?? {})}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function parseTtl(ttl: string | undefined): number | undefined {
  const match = ttl === undefined ? null : /^(\d+(?:\.\d+)?)s$/.exec(ttl);
  return match ? Number(match[1]) * 1000 : undefined;
}

function cacheMetadata(cache: StoredCache) {
  return {
    name: cache.name,
    model: cache.model,
    ...(cache.displayName && { displayName: cache.displayName }),
    createTime: cache.createTime,
    updateTime: new Date().toISOString(),
    expireTime: new Date(cache.expireTime).toISOString(),
    usageMetadata: { totalTokenCount: cache.totalTokenCount },
  };
}

type Backend = 'gemini' | 'vertex';

/** Gemini's limit on a whole request (inline data included): beyond it, the Files API. */
const REQUEST_LIMIT_BYTES = 20 * 1024 * 1024;

// The inline types each backend documents (images and audio; video and documents are not used here).
const GEMINI_INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/heic',
  'image/heif',
  'audio/wav',
  'audio/mp3',
  'audio/aiff',
  'audio/aac',
  'audio/ogg',
  'audio/flac',
]);
const VERTEX_INLINE_TYPES = new Set([
  ...GEMINI_INLINE_TYPES,
  'audio/x-aac',
  'audio/m4a',
  'audio/mp4',
  'audio/mpeg',
  'audio/mpga',
  'audio/opus',
  'audio/pcm',
  'audio/webm',
]);

/**
 * Gemini's rule for a declared function's name: a letter or an underscore, then letters, digits,
 * underscores, dots, colons or dashes, at most 64 in all.
 */
function checkFunctionDeclarations(
  tools: GenerateContentBody['tools'],
  request: 'GenerateContentRequest' | 'CachedContent',
): string | undefined {
  for (const [toolIndex, tool] of (tools ?? []).entries()) {
    for (const [index, declaration] of (tool.functionDeclarations ?? []).entries()) {
      const name = declaration.name;
      if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(name)) {
        return `* ${request}.tools[${toolIndex}].function_declarations[${index}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.`;
      }
    }
  }
  return undefined;
}

/** Gemini: "function call turn comes immediately after a user turn or after a function response turn". */
function checkCallTurnPosition(contents: WireContent[], index: number): string | undefined {
  const content = contents[index]!;
  if (content.role !== 'model' || !(content.parts ?? []).some((part) => part.functionCall)) return undefined;
  if (contents[index - 1]?.role === 'user') return undefined;
  return 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.';
}

// A part is a oneof: exactly one of these holds its data (a signature or `thought` alone is none).
const PART_DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
] as const;

/**
 * Gemini's 400 for a part that carries no data (`{}`, a signature alone), and for a function
 * call whose arguments are no object (a `google.protobuf.Struct` on the wire).
 */
function checkPartData(content: WireContent, index: number): string | undefined {
  for (const [position, part] of (content.parts ?? []).entries()) {
    if (!PART_DATA_FIELDS.some((field) => (part as Record<string, unknown>)[field] !== undefined)) {
      return `* GenerateContentRequest.contents[${index}].parts[${position}].data: required oneof field 'data' must have one initialized field`;
    }
    const args: unknown = part.functionCall?.args;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return `Invalid value at 'contents[${index}].parts[${position}].function_call.args' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(args)}`;
    }
  }
  return undefined;
}

function checkInlineData(content: WireContent, backend: Backend): string | undefined {
  const accepted = backend === 'vertex' ? VERTEX_INLINE_TYPES : GEMINI_INLINE_TYPES;
  for (const part of content.parts ?? []) {
    if (part.inlineData && !accepted.has(part.inlineData.mimeType)) {
      return `Unsupported MIME type: ${part.inlineData.mimeType}`;
    }
  }
  return undefined;
}

/**
 * The fake's tokenizer: four ASCII characters per token, one token per other character. Gemini
 * gives Japanese about one token per character, which characters ÷ 4 undercounts fourfold.
 */
export function fakeTokenCount(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const character of text) {
    if (character.charCodeAt(0) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

function textOf(contents: WireContent[]): string {
  return contents.flatMap((content) => (content.parts ?? []).map((part) => part.text ?? '')).join('');
}

function countTokens(body: unknown): FakeAnswer {
  const contents = (body as { contents?: WireContent[] } | undefined)?.contents ?? [];
  if (contents.length === 0) return invalid('* CountTokensRequest.contents: contents is not specified');
  return { body: { totalTokens: fakeTokenCount(textOf(contents)) } };
}

function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

// ---- Answers shaped like Gemini's ----

/** A `google.rpc.Status` error answer, as Gemini sends it. */
export function apiError(
  status: number,
  statusText: string,
  message: string,
  options: { details?: unknown[]; headers?: Record<string, string> } = {},
): FakeAnswer {
  return {
    status,
    body: {
      error: {
        code: status,
        message,
        status: statusText,
        ...(options.details && { details: options.details }),
      },
    },
    ...(options.headers && { headers: options.headers }),
  };
}

/** Where the parsed body holds a string (or a property name) with a lone surrogate, if anywhere. */
function illFormedStringAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : path || '.';
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (!key.isWellFormed()) return at;
    const found = illFormedStringAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function invalid(message: string): FakeAnswer {
  return apiError(400, 'INVALID_ARGUMENT', message);
}

/** A 429 with the `google.rpc.RetryInfo` detail Gemini attaches to quota errors. */
export function rateLimited(retryDelay: string): FakeAnswer {
  return apiError(
    429,
    'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details.',
    {
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            { quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests' },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
      ],
    },
  );
}

export interface UsageCounts {
  readonly promptTokenCount?: number;
  readonly candidatesTokenCount?: number;
  readonly thoughtsTokenCount?: number;
}

/** A candidate with the given parts and `finishReason: STOP`. */
export function candidateAnswer(parts: WirePart[], usage: UsageCounts = {}): FakeAnswer {
  const promptTokenCount = usage.promptTokenCount ?? 120;
  const candidatesTokenCount = usage.candidatesTokenCount ?? 12;
  return {
    body: {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount,
        candidatesTokenCount,
        ...(usage.thoughtsTokenCount !== undefined && { thoughtsTokenCount: usage.thoughtsTokenCount }),
        totalTokenCount: promptTokenCount + candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
      },
      modelVersion: 'gemini-3.6-flash',
      responseId: randomUUID(),
    },
  };
}

export function textAnswer(text: string): FakeAnswer {
  return candidateAnswer([{ text }]);
}

/** A function call part; Gemini signs the first call of a step when the model thought first. */
export function functionCallPart(
  name: string,
  args: Record<string, unknown>,
  extra: { id?: string; thoughtSignature?: string } = {},
): WirePart {
  return {
    functionCall: { ...(extra.id && { id: extra.id }), name, args },
    ...(extra.thoughtSignature && { thoughtSignature: extra.thoughtSignature }),
  };
}

/** The prompt itself was blocked: no candidates, only `promptFeedback`. */
export function blockedPromptAnswer(blockReason: string): FakeAnswer {
  return {
    body: {
      promptFeedback: {
        blockReason,
        safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }],
      },
      usageMetadata: { promptTokenCount: 120, totalTokenCount: 120 },
    },
  };
}

/** A candidate stopped for safety, with no content. */
export function safetyStoppedAnswer(): FakeAnswer {
  return {
    body: {
      candidates: [
        {
          finishReason: 'SAFETY',
          index: 0,
          safetyRatings: [
            { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
          ],
        },
      ],
      usageMetadata: { promptTokenCount: 120, totalTokenCount: 120 },
    },
  };
}

/**
 * A candidate that ended with `finishReason`, with the given parts (none by default): what
 * Gemini sends for MAX_TOKENS after thinking used the budget, MALFORMED_FUNCTION_CALL,
 * TOO_MANY_TOOL_CALLS, OTHER, RECITATION and the like.
 */
export function finishedAnswer(finishReason: string, parts: WirePart[] = []): FakeAnswer {
  return {
    body: {
      candidates: [
        {
          ...(parts.length > 0 && { content: { role: 'model', parts } }),
          finishReason,
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 120, thoughtsTokenCount: 60, totalTokenCount: 180 },
    },
  };
}

/** A candidate that calls `reply` with `message`: how a model answers a user in kaiwa. */
export function replyAnswer(message: string): FakeAnswer {
  return candidateAnswer([functionCallPart('reply', { message })]);
}
