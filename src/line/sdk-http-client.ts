import { messagingApi } from '@line/bot-sdk';
import type { LineAnswer } from './line-answer.js';
import { LineApiError } from './line-api-error.js';
import type { LineCallScope, LineTransport } from './line-transport.js';

/** Query or form parameters: LINE's are scalars, and the SDK stringifies them. */
type Params = Record<string, string | number | boolean | null | undefined> | undefined;
type RequestConfig = { headers?: Record<string, string> } | undefined;

/**
 * What `@line/bot-sdk`'s generated clients call on their `HTTPFetchClient`, implemented on the
 * {@link LineTransport}. Same URLs, headers and bodies as the SDK's own (v11), and the same
 * `HTTPFetchError` for an error status — a {@link LineApiError}, whose message leaves the body out.
 * It answers with a {@link LineAnswer}: what the clients read of a `Response`, without its streams.
 */
export class TransportHttpClient {
  constructor(
    private readonly transport: LineTransport,
    private readonly baseURL: string,
    private readonly headers: Record<string, string>,
    private readonly scope: LineCallScope = {},
  ) {}

  /** The same client with `scope` added to its own (signals both apply, statuses add up). */
  within(scope: LineCallScope): TransportHttpClient {
    const signals = [this.scope.signal, scope.signal].filter((signal) => signal !== undefined);
    return new TransportHttpClient(this.transport, this.baseURL, this.headers, {
      ...(signals.length > 0 && { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) }),
      expectedStatuses: [...(this.scope.expectedStatuses ?? []), ...(scope.expectedStatuses ?? [])],
    });
  }

  get(url: string, params?: Params) {
    return this.send('GET', this.target(url, params));
  }

  post(url: string, body?: unknown, config?: RequestConfig) {
    return this.send('POST', this.target(url), json(body), config?.headers);
  }

  put(url: string, body?: unknown, config?: RequestConfig) {
    return this.send('PUT', this.target(url), json(body), config?.headers);
  }

  postForm(url: string, body?: Params) {
    return this.send('POST', this.target(url), {
      contentType: 'application/x-www-form-urlencoded',
      body: searchParams(body).toString(),
    });
  }

  postFormMultipart(url: string, form: FormData) {
    return this.send('POST', this.target(url), { body: form });
  }

  putFormMultipart(url: string, form: FormData, config?: RequestConfig) {
    return this.send('PUT', this.target(url), { body: form }, config?.headers);
  }

  postBinaryContent(url: string, body: Blob) {
    return this.send('POST', this.target(url), { contentType: body.type, body });
  }

  delete(url: string, params?: Params) {
    return this.send('DELETE', this.target(url, params));
  }

  private target(url: string, params?: Params): URL {
    const target = new URL(url, this.baseURL);
    if (params) target.search = searchParams(params).toString();
    return target;
  }

  private async send(
    method: string,
    url: URL,
    payload?: { contentType?: string; body: RequestInit['body'] },
    extraHeaders: Record<string, string> = {},
  ): Promise<LineAnswer> {
    const response = await this.transport.call(url, {
      method,
      headers: {
        ...(payload?.contentType && { 'content-type': payload.contentType }),
        ...this.headers,
        ...lowerCased(extraHeaders),
      },
      ...(payload && { body: payload.body }),
      ...(this.scope.signal && { signal: this.scope.signal }),
      ...(this.scope.expectedStatuses && { expectedStatuses: this.scope.expectedStatuses }),
    });
    if (!response.ok) {
      throw new LineApiError(`${method} ${url.pathname}`, response, await response.text());
    }
    return response;
  }
}

/** The SDK's Messaging API client, with every call it makes going through `transport`. */
export function createMessagingApiClient(
  transport: LineTransport,
  options: { channelAccessToken: string; baseURL: string },
): messagingApi.MessagingApiClient {
  const client = new messagingApi.MessagingApiClient(options);
  // @line/bot-sdk 11 calls the global fetch with no timeout, no signal and no way to pass a
  // fetch of one's own; its generated clients keep their HTTPFetchClient in `httpClient`, which
  // this replaces. A later SDK that renames it fails here, at start-up, not silently later.
  if (!('httpClient' in client)) {
    throw new Error(
      '@line/bot-sdk: MessagingApiClient has no httpClient to route through the LINE transport',
    );
  }
  Object.assign(client, {
    httpClient: new TransportHttpClient(transport, options.baseURL, {
      authorization: `Bearer ${options.channelAccessToken}`,
      'user-agent': 'kaiwa (@line/bot-sdk 11)',
    }),
  });
  return client;
}

/**
 * The client with `scope` applied to every call it makes: the turn's signal ends a call still
 * running, and the expected statuses are logged at debug. A view of `client` (its prototype),
 * so making one per call is cheap. A client not routed through the transport is returned as
 * it is: nothing could apply the scope to its calls.
 * @example
 * await scopedClient(client, { signal, expectedStatuses: [409] }).pushMessage(request, retryKey);
 */
export function scopedClient<Client extends object>(client: Client, scope: LineCallScope): Client {
  const httpClient = (client as { httpClient?: unknown }).httpClient;
  if (!(httpClient instanceof TransportHttpClient)) return client;
  return Object.create(client, { httpClient: { value: httpClient.within(scope) } }) as Client;
}

function json(body: unknown) {
  return { contentType: 'application/json', body: JSON.stringify(body) };
}

function searchParams(params: Params): URLSearchParams {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined && value !== null) search.append(key, String(value));
  }
  return search;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
