import { createConsoleClient } from '/work/main/src/console/index.js';
const text = '{"message":"Segment read successfully.","data":{"id":"beta_testers","isEnabled":true,"description":"Users in beta testers","lastModifierName":"Edsger Dijkstra","lastModifierID":"usr_5","type":"id_list","count":667,"tags":[]}}';
const mk = () => new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
const client = createConsoleClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sandbox-key', mutationBudget: false, fetch: (async () => mk()) as typeof fetch });
async function atime(name: string, fn: () => Promise<unknown>, n = 30000) {
  for (let i = 0; i < n; i++) await fn();
  const s = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(name, (((performance.now() - s) / n) * 1000).toFixed(2), 'µs');
}
await atime('Response+text', async () => { await mk().text(); });
await atime('client with fake fetch', () => client.segments.get('beta_testers'));
await atime('Response+text', async () => { await mk().text(); });
await atime('client with fake fetch', () => client.segments.get('beta_testers'));
