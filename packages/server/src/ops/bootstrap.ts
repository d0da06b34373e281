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
      'Get an access token into $TOKEN (bash):',
      `  TOKEN=$(curl -s ${baseUrl}/oauth/token -H 'Content-Type: application/json' \\`,
      `    -d '${body}' | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')`,
      '',
      `Then: curl -s ${baseUrl}/v1/merchant -H "Authorization: Bearer $TOKEN"`,
      `API reference: ${baseUrl}/docs    Dashboard: ${baseUrl}/dashboard (sign in with the client id and secret)`,
      '',
      `Lost the secret? Stop Purse (Ctrl-C), run: npm run purse -- merchant rotate-secret ${merchant_id}  and start it again.`,
      '',
    ].join('\n')}\n`,
  );
}
