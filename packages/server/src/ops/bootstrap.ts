import type { MerchantService } from '../merchants/service.ts';

/**
 * First start on an empty embedded database: one sandbox merchant, its credentials printed once
 * with a copy-paste token request, so a newcomer can try the API within a minute.
 */
export async function bootstrapSandboxMerchant(merchants: MerchantService, baseUrl: string): Promise<void> {
  if ((await merchants.countMerchants()) > 0) return;
  const created = await merchants.createMerchant({ name: 'Sandbox merchant' });
  if (!created.ok) return;
  const { merchant_id, client_id, client_secret } = created.value;
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id, client_secret });
  process.stdout.write(
    `${[
      '',
      'Purse created a sandbox merchant on this new database. Its secret is shown only now:',
      `  merchant_id:   ${merchant_id}`,
      `  client_id:     ${client_id}`,
      `  client_secret: ${client_secret}`,
      '',
      'Get an access token:',
      `  curl -s ${baseUrl}/oauth/token -H 'Content-Type: application/json' -H 'Accept: application/json' \\`,
      `    -d '${body}'`,
      '',
      `Then: curl -s ${baseUrl}/v1/merchant -H "Authorization: Bearer <access_token>"`,
      `API reference: ${baseUrl}/docs`,
      '',
    ].join('\n')}\n`,
  );
}
