/** A valid webhook body with no events, padded to exactly `bytes` UTF-8 bytes. */
export function webhookBodyOfSize(bytes: number): string {
  const empty = '{"destination":"Ubot","events":[],"padding":""}';
  const body = empty.replace('"padding":""', `"padding":"${'x'.repeat(bytes - empty.length)}"`);
  if (Buffer.byteLength(body) !== bytes) throw new Error(`cannot pad a webhook body to ${bytes} bytes`);
  return body;
}
