import assert from 'node:assert/strict';
import type { TestApp, TestMerchant } from '../helpers/app.ts';
import { post } from '../helpers/factories.ts';

export interface KeyClient {
  id: string;
  clientId: string;
  clientSecret: string;
  auth: { authorization: string };
}

/** Exchanges client credentials at the real token endpoint; null when refused. */
export async function exchange(app: TestApp, clientId: string, clientSecret: string): Promise<string | null> {
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  });
  return res.statusCode === 200 ? (res.json().access_token as string) : null;
}

/** A new key of the merchant (created with its all-scope token) and a token of that key. */
export async function keyWith(app: TestApp, m: TestMerchant, scopes: string[], name = 'test key'): Promise<KeyClient> {
  const res = await post(app, m, '/v1/api_keys', { name, scopes });
  assert.equal(res.statusCode, 201, res.body);
  const key = res.json();
  const token = await exchange(app, key.client_id, key.client_secret);
  assert.ok(token, 'the new key exchanges at /oauth/token');
  return { id: key.id, clientId: key.client_id, clientSecret: key.client_secret, auth: { authorization: `Bearer ${token}` } };
}
