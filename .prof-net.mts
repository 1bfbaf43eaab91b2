import { startSandbox } from '/work/main/src/sandbox/index.js';
import { createConsoleClient } from '/work/main/src/console/index.js';
import { envelope } from '/work/main/src/console/schemas/common.js';
import { SegmentSchema } from '/work/main/src/console/schemas/segments.js';
const KEY = 'sandbox-key';
const running = await startSandbox({ rateLimits: false });
const id = [...running.sandbox.state.segments.keys()][0] as string;
const url = `${running.url}/console/v1/segments/${encodeURIComponent(id)}`;
const headers = { 'SERVICE-API-KEY': KEY, accept: 'application/json' };
const env = envelope(SegmentSchema);
const client = createConsoleClient({ baseUrl: running.url, apiKey: KEY, mutationBudget: false });
const c: Record<string, () => Promise<void>> = {
  raw: async () => { const res = await fetch(url, { headers }); const b = await res.json() as any; if (b.data.id !== id) throw 1; },
  rawTimeout: async () => { const ctl = new AbortController(); const t = setTimeout(() => ctl.abort(), 10000); try { const res = await fetch(url, { headers, signal: ctl.signal }); const b = await res.json() as any; if (b.data.id !== id) throw 1; } finally { clearTimeout(t); } },
  manual: async () => { const ctl = new AbortController(); const t = setTimeout(() => ctl.abort(), 10000); try { const res = await fetch(url, { method: 'GET', headers: { accept: 'application/json', 'SERVICE-API-KEY': KEY }, signal: ctl.signal }); let text = await res.text(); if (text.includes(KEY)) text = ''; const r = env.safeParse(JSON.parse(text)); if (!r.success || r.data.data.id !== id) throw 1; } finally { clearTimeout(t); } },
  sigTimeout: async () => { const res = await fetch(url, { headers, signal: AbortSignal.timeout(10000) }); const b = await res.json() as any; if (b.data.id !== id) throw 1; },
  m_noparse: async () => { const ctl = new AbortController(); const t = setTimeout(() => ctl.abort(), 10000); try { const res = await fetch(url, { method: 'GET', headers: { accept: 'application/json', 'SERVICE-API-KEY': KEY }, signal: ctl.signal }); let text = await res.text(); if (text.includes(KEY)) text = ''; const r = JSON.parse(text); if (r.data.id !== id) throw 1; } finally { clearTimeout(t); } },
  m_text: async () => { const ctl = new AbortController(); const t = setTimeout(() => ctl.abort(), 10000); try { const res = await fetch(url, { headers, signal: ctl.signal }); let text = await res.text(); const r = JSON.parse(text); if (r.data.id !== id) throw 1; } finally { clearTimeout(t); } },
  m_method: async () => { const ctl = new AbortController(); const t = setTimeout(() => ctl.abort(), 10000); try { const res = await fetch(url, { method: 'GET', headers, signal: ctl.signal }); const r = await res.json() as any; if (r.data.id !== id) throw 1; } finally { clearTimeout(t); } },
  client: async () => { const s = await client.segments.get(id); if (s.id !== id) throw 1; },
};
const names = Object.keys(process.argv[2] ? process.argv[2].split(',') : c).map((k, i) => process.argv[2] ? process.argv[2].split(',')[i]! : k);
const fns = names.map((n) => c[n]!);
const N = Number(process.env.N ?? 3000);
for (let i = 0; i < 500; i++) for (const f of fns) await f();
const times = fns.map(() => [] as number[]);
for (let i = 0; i < N; i++) for (let k = 0; k < fns.length; k++) { const j = (i + k) % fns.length; const s = performance.now(); await fns[j]!(); times[j]!.push(performance.now() - s); }
const p50 = times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!);
console.log(names.map((n, i) => `${n}=${(p50[i]! * 1000).toFixed(0)}µs (${(p50[i]! / p50[0]!).toFixed(3)})`).join('  '));
await running.close();
