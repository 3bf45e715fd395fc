import { createHmac, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { webhook } from '@line/bot-sdk';
import type { WorkerContext } from '../../../src/aws/index.js';

/**
 * The event API Gateway's HTTP API (payload format 2.0) hands the webhook function for
 * `POST /webhook`, field for field as AWS documents it; header names arrive lowercased.
 */
export function apiGatewayEvent(
  body: string,
  headers: Record<string, string> = {},
  options: { base64?: boolean } = {},
): APIGatewayProxyEventV2 {
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: 'POST /webhook',
    rawPath: '/webhook',
    rawQueryString: '',
    headers: {
      accept: '*/*',
      'content-length': String(Buffer.byteLength(body)),
      'content-type': 'application/json; charset=utf-8',
      host: 'r3pmxmplak.execute-api.ap-northeast-1.amazonaws.com',
      'user-agent': 'LineBotWebhook/2.0',
      'x-amzn-trace-id': `Root=1-${Math.floor(now / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      'x-forwarded-for': '147.92.150.192',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
      ...headers,
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'r3pmxmplak',
      domainName: 'r3pmxmplak.execute-api.ap-northeast-1.amazonaws.com',
      domainPrefix: 'r3pmxmplak',
      http: {
        method: 'POST',
        path: '/webhook',
        protocol: 'HTTP/1.1',
        sourceIp: '147.92.150.192',
        userAgent: 'LineBotWebhook/2.0',
      },
      requestId: `${randomUUID().slice(0, 8)}=`,
      routeKey: 'POST /webhook',
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: options.base64 ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: options.base64 ?? false,
  };
}

/** A webhook request as LINE signs it, as API Gateway delivers it. */
export function signedWebhookEvent(body: string, channelSecret: string, options: { base64?: boolean } = {}) {
  const signature = createHmac('sha256', channelSecret).update(body).digest('base64');
  return apiGatewayEvent(body, { 'x-line-signature': signature }, options);
}

/** A LINE text message event from a user. */
export function textEvent(
  userId: string,
  text: string,
  options: { replyToken?: string; timestamp?: number; eventId?: string } = {},
): webhook.MessageEvent {
  return {
    type: 'message',
    mode: 'active',
    timestamp: options.timestamp ?? Date.now(),
    webhookEventId: options.eventId ?? `01J${randomUUID().replace(/-/g, '').slice(0, 23).toUpperCase()}`,
    deliveryContext: { isRedelivery: false },
    source: { type: 'user', userId },
    ...(options.replyToken && { replyToken: options.replyToken }),
    message: {
      type: 'text',
      id: String(Date.now()) + String(Math.floor(Math.random() * 1000)),
      quoteToken: `q${randomUUID()}`,
      text,
    },
  };
}

/** The parts of a Lambda context the handlers read; `remainingMs` counts from now. */
export function lambdaContext(remainingMs: number): WorkerContext {
  const deadline = Date.now() + remainingMs;
  return {
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    awsRequestId: randomUUID(),
  };
}
