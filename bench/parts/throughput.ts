/**
 * Throughput: chains of 5 handoffs started at once on one worker, on baton and its floor (remote
 * and local, and the floor making a handoff's writes), with the latency of each chain and the
 * process's peak RSS, beside the peers' rows.
 */
import { median, percentile, round, rssSampler } from '../lib';
import { chainTeam } from '../teams';
import { print, type BenchContext } from './context';

/** Measures and prints the bursts; resolves to the figures results.json records as `throughput`. */
export async function throughputPart(ctx: BenchContext): Promise<Record<string, unknown>> {
  const { latency, withBaton, floorChain, peers } = ctx;
  const chains = ctx.burstChains;
  const handoffs = 5;
  const steps = 1 + (handoffs + 1);
  const burst = async (start: () => Promise<unknown>) => {
    const rss = rssSampler();
    const t0 = performance.now();
    const latencies = await Promise.all(
      Array.from({ length: chains }, async () => {
        const t = performance.now();
        await start();
        return performance.now() - t;
      }),
    );
    const total = performance.now() - t0;
    return { total, latencies, peakRssMb: rss.stop() };
  };
  const b = await withBaton(chainTeam(handoffs, latency), 'bench-burst', (baton) => burst(() => baton.run('c0', 'go')));
  let batonLocalPerSecond: number | undefined;
  const perSecond = (r: { total: number }) => (chains * handoffs) / (r.total / 1000);
  const figures = (r: { total: number; latencies: number[]; peakRssMb: number }) => ({
    handoffsPerSecond: round(perSecond(r), 1),
    p50Ms: round(median(r.latencies)),
    p95Ms: round(percentile(r.latencies, 95)),
    peakRssMb: round(r.peakRssMb, 0),
  });
  const row = (system: string, r: ReturnType<typeof figures>) => ({
    system,
    'handoffs/s': r.handoffsPerSecond,
    'p50 ms': r.p50Ms,
    'p95 ms': r.p95Ms,
    'peak RSS MB': r.peakRssMb,
  });
  const rows = [row('baton', figures(b))];
  const recorded: Record<string, unknown> = { chains, handoffsPerChain: handoffs, baton: figures(b) };
  if (ctx.selected('throughput')) {
    const f = await burst(() => floorChain(steps, handoffs + 1));
    // The floor making a handoff's writes: what the server's share of a burst is.
    const fw = await burst(() => floorChain(steps, handoffs + 1, false, true));
    const bl = await withBaton(chainTeam(handoffs, latency), 'bench-burst-local', (baton) =>
      burst(() => baton.run('c0', 'go', { modelActivity: 'local' })),
    );
    const fl = await burst(() => floorChain(steps, handoffs + 1, true));
    batonLocalPerSecond = perSecond(bl);
    Object.assign(recorded, {
      floor: figures(f),
      batonOverFloorThroughput: round(perSecond(b) / perSecond(f)),
      floorWithWrites: figures(fw),
      batonOverFloorWithWritesThroughput: round(perSecond(b) / perSecond(fw)),
      batonLocal: figures(bl),
      floorLocal: figures(fl),
      batonLocalOverFloorLocalThroughput: round(perSecond(bl) / perSecond(fl)),
    });
    rows.push(
      row(`floor (${steps} no-op activities)`, figures(f)),
      row("floor + a handoff's writes", figures(fw)),
      row('baton, local model calls', figures(bl)),
      row(`floor (${steps} no-op local activities)`, figures(fl)),
    );
  }
  for (const p of peers?.throughput ?? []) {
    const ours = p.local && batonLocalPerSecond !== undefined ? batonLocalPerSecond : perSecond(b);
    p.figures.batonOverThroughput = round(ours / p.handoffsPerSecond, 2);
    rows.push(row(p.system, p.figures.throughput));
  }
  print(`Throughput: ${chains} chains of ${handoffs} handoffs started at once, one worker`, rows);
  return recorded;
}
