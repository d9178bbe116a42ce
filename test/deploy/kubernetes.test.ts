// deploy/kubernetes, checked offline: the base and each overlay render with `kubectl kustomize`,
// every object is valid against the Kubernetes, KEDA and Prometheus-operator schemas, and the
// manifests agree with the code: ports, env names, the config file, drain deadlines, the
// autoscaler's target. (The probe paths and metric names are checked against running
// processes in metrics-live.test.ts.)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOP_DEADLINE_MS } from '../../src/cli/process-lifecycle.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { ROOT } from '../support/cluster.js';
import { container, envValue, find, KUBERNETES_DIR, LAYERS, podSpec, render, type Container, type K8sObject } from './kustomize.js';
import { validateObject } from './k8s-schemas.js';

const rendered = Object.fromEntries(LAYERS.map((layer) => [layer, render(layer)])) as Record<(typeof LAYERS)[number], K8sObject[]>;
const production = rendered['overlays/production'];
const dev = rendered['overlays/dev'];
const api = find(production, 'Deployment', 'warren-api');
const worker = find(production, 'Deployment', 'warren-worker');
const apiContainer = container(api);
const workerContainer = container(worker);
const BASE_CONFIG = path.join(KUBERNETES_DIR, 'base', 'config.yaml');
const config = loadAppConfig({ WARREN_CONFIG: BASE_CONFIG }).config;

/** Every `NAME` the processes read from their environment: `env.NAME`, `process.env.NAME`, `env['NAME']` in src/ and workers/. */
function envNamesReadByCode(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const file = path.join(dir, entry);
      if (statSync(file).isDirectory()) walk(file);
      else if (file.endsWith('.ts')) {
        for (const m of readFileSync(file, 'utf8').matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)\b|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) names.add((m[1] ?? m[2]) as string);
      }
    }
  };
  walk(path.join(ROOT, 'src'));
  walk(path.join(ROOT, 'workers'));
  return names;
}

/** The `$NAME`s config.yaml reads from the environment. */
const configEnvNames = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/\$([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] as string));

/** A generated object (Secret, ConfigMap): its name carries kustomize's content hash. */
const generated = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name.startsWith(`${name}-`));
  if (!found) throw new Error(`no generated ${kind} ${name}`);
  return found;
};

const port = (c: Container, name: string) => c.ports?.find((p) => p.name === name)?.containerPort;

describe('deploy/kubernetes renders and validates', () => {
  it.each(LAYERS)('%s: every object is valid against its schema', (layer) => {
    const objects = rendered[layer];
    expect(objects.length).toBeGreaterThan(5);
    for (const object of objects) {
      const problems = validateObject(object);
      expect(problems, `${layer}: ${object.kind} ${object.metadata.name}`).toEqual([]);
    }
  });

  it('the validators refuse what a cluster would: a misspelt field, a wrong type, a missing required field', () => {
    const service = find(production, 'Service', 'warren-api');
    expect(validateObject(service)).toEqual([]);
    expect(validateObject({ ...service, spec: { ...service.spec, portz: [] } }).length).toBeGreaterThan(0);
    const scaled = find(production, 'ScaledObject', 'warren-worker');
    expect(validateObject({ ...scaled, spec: { ...scaled.spec, minReplicaCount: 'two' } }).length).toBeGreaterThan(0);
    const monitor = find(production, 'PodMonitor', 'warren-worker');
    expect(validateObject({ ...monitor, spec: { podMetricsEndpoints: [] } }).length).toBeGreaterThan(0);
    const typo = structuredClone(api);
    const pod = (typo.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec;
    pod.containers[0] = { ...pod.containers[0], readinesProbe: pod.containers[0]?.readinessProbe };
    expect(validateObject(typo)).toEqual(['/spec/template/spec/containers/0/readinesProbe: unknown field']);
    expect(validateObject({ ...service, kind: 'Servise' })).toEqual(['no schema for v1 Servise']);
  });

  it('dev runs one Redis, one API and one worker; production 2+ APIs, KEDA workers, monitors, no Redis of its own', () => {
    const kinds = (objects: K8sObject[]) => new Set(objects.map((o) => o.kind));
    expect(find(dev, 'StatefulSet', 'redis')).toBeTruthy();
    expect((find(dev, 'Deployment', 'warren-api').spec as { replicas: number }).replicas).toBe(1);
    expect((find(dev, 'Deployment', 'warren-worker').spec as { replicas: number }).replicas).toBe(1);
    for (const kind of ['ScaledObject', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'ServiceMonitor', 'PodMonitor']) expect(kinds(dev).has(kind), kind).toBe(false);
    expect(generated(dev, 'Secret', 'warren-secrets')).toBeTruthy();

    expect(kinds(production).has('StatefulSet')).toBe(false);
    expect(production.some((o) => o.kind === 'Secret'), 'production secrets are created by the operator, never rendered').toBe(false);
    expect((api.spec as { replicas: number }).replicas).toBeGreaterThanOrEqual(2);
    expect((find(production, 'HorizontalPodAutoscaler', 'warren-api').spec as { minReplicas: number }).minReplicas).toBeGreaterThanOrEqual(2);
    expect((find(production, 'ScaledObject', 'warren-worker').spec as { minReplicaCount: number }).minReplicaCount).toBeGreaterThanOrEqual(2);
    expect((find(production, 'PersistentVolumeClaim', 'warren-home').spec as { accessModes: string[] }).accessModes).toEqual(['ReadWriteMany']);
    for (const o of production) if (o.kind !== 'Namespace') expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe('warren');
  });
});

describe('deploy/kubernetes agrees with the code', () => {
  it('config.yaml passes the same validation as the start, and its worker metrics port is the worker container\'s', () => {
    expect(config.metrics.worker_port).toBe(port(workerContainer, 'metrics'));
    expect(find(production, 'ConfigMap', find(production, 'ConfigMap', podSpec(api).volumes?.find((v) => v.configMap)?.configMap?.name ?? '').metadata.name).data?.['config.yaml']).toBe(
      readFileSync(BASE_CONFIG, 'utf8'),
    );
  });

  it('ports: the API listens where its Service, Ingress, probes and NetworkPolicy point', () => {
    const listen = Number(envValue(apiContainer, 'PORT'));
    expect(port(apiContainer, 'http')).toBe(listen);
    expect(envValue(apiContainer, 'HOST')).toBe('0.0.0.0');
    const service = find(production, 'Service', 'warren-api').spec as { ports: { name: string; targetPort: string }[] };
    expect(service.ports[0]?.targetPort).toBe('http');
    const ingress = find(production, 'Ingress', 'warren').spec as { rules: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[] };
    expect(ingress.rules[0]?.http.paths[0]?.backend.service).toEqual({ name: 'warren-api', port: { name: service.ports[0]?.name } });
    for (const probe of [apiContainer.readinessProbe, apiContainer.livenessProbe, apiContainer.startupProbe]) expect(probe?.httpGet?.port).toBe('http');
    expect(workerContainer.livenessProbe?.httpGet).toEqual({ path: '/metrics', port: 'metrics' });
    const policy = (name: string) => find(production, 'NetworkPolicy', name).spec as { ingress: { ports: { port: number }[] }[] };
    for (const rule of policy('warren-api').ingress) expect(rule.ports.map((p) => p.port)).toEqual([listen]);
    for (const rule of policy('warren-worker').ingress) expect(rule.ports.map((p) => p.port)).toEqual([config.metrics.worker_port]);
  });

  it('monitors scrape /metrics on the named ports, as the job the ScaledObject\'s query names', () => {
    const sm = find(production, 'ServiceMonitor', 'warren-api').spec as { endpoints: { port: string; path: string }[] };
    expect(sm.endpoints.map((e) => [e.port, e.path])).toEqual([['http', '/metrics']]);
    const pm = find(production, 'PodMonitor', 'warren-worker').spec as { podMetricsEndpoints: { port: string; path: string }[] };
    expect(pm.podMetricsEndpoints.map((e) => [e.port, e.path])).toEqual([['metrics', '/metrics']]);
    const query = (find(production, 'ScaledObject', 'warren-worker').spec as { triggers: { metadata: { query: string } }[] }).triggers[0]?.metadata.query ?? '';
    // The ServiceMonitor's job label is its Service's name.
    expect(query).toContain('job="warren-api"');
    expect(query).toContain('namespace="warren"');
  });

  it('every environment variable set is one the processes read (or config.yaml names), and every file path they name is mounted', () => {
    const read = envNamesReadByCode();
    const fromConfig = configEnvNames(BASE_CONFIG);
    // HOME is read by LibreOffice (its profile), not by Warren.
    const known = (name: string) => read.has(name) || fromConfig.has(name) || name === 'HOME';
    for (const c of [apiContainer, workerContainer]) {
      for (const e of c.env ?? []) expect(known(e.name), `${c.name}: ${e.name}`).toBe(true);
      expect(c.envFrom?.map((f) => f.secretRef?.name)).toEqual(['warren-secrets']);
      const mounted = (file: string) => c.volumeMounts?.some((m) => !m.subPath && file.startsWith(`${m.mountPath}/`));
      for (const name of ['WARREN_HOME', 'WARREN_CONFIG', 'WARREN_EXTENSIONS_CONFIG']) expect(mounted(`${envValue(c, name)}/`), `${c.name}: ${name}`).toBe(true);
      expect(envValue(c, 'WARREN_QUEUE')).toBe(envValue(apiContainer, 'WARREN_QUEUE'));
    }
    const devSecret = generated(dev, 'Secret', 'warren-secrets').data ?? {};
    for (const name of Object.keys(devSecret)) expect(known(name), `dev secret ${name}`).toBe(true);
    expect(Buffer.from(devSecret.REDIS_URL ?? '', 'base64').toString()).toBe('redis://redis:6379');
    expect(apiContainer.args).toEqual(['node', 'dist/src/main.js']);
    expect(workerContainer.args).toEqual(['node', 'dist/workers/main.js']);
  });

  it('grace periods cover the drain: preStop, then the stop deadline the processes keep, then the exit', () => {
    const deadline = Math.ceil(STOP_DEADLINE_MS / 1000);
    const preStop = apiContainer.lifecycle?.preStop?.sleep?.seconds ?? 0;
    expect(preStop).toBeGreaterThan(0);
    expect(podSpec(api).terminationGracePeriodSeconds).toBe(preStop + deadline + 1);
    expect(workerContainer.lifecycle?.preStop).toBeUndefined();
    expect(podSpec(worker).terminationGracePeriodSeconds).toBe(deadline + 1);
  });

  it('the ScaledObject asks one worker per WARREN_WORKER_CONCURRENCY runs, and the Ingress fits the config', () => {
    const trigger = (find(production, 'ScaledObject', 'warren-worker').spec as { triggers: { type: string; metadata: { threshold: string } }[] }).triggers[0];
    expect(trigger?.type).toBe('prometheus');
    expect(trigger?.metadata.threshold).toBe(envValue(workerContainer, 'WARREN_WORKER_CONCURRENCY'));
    const annotations = find(production, 'Ingress', 'warren').metadata.annotations ?? {};
    expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    expect(annotations['nginx.ingress.kubernetes.io/proxy-body-size']).toBe(`${config.uploads.max_request_mb}m`);
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThan(config.runtime.heartbeat_seconds * 3);
  });

  it('keeps /metrics off the Ingress, on the same host as the API in every overlay', () => {
    type IngressSpec = { rules: { host: string; http: { paths: { path: string; pathType: string }[] } }[]; tls?: unknown };
    for (const manifests of [dev, production]) {
      const api = find(manifests, 'Ingress', 'warren');
      const closed = find(manifests, 'Ingress', 'warren-metrics-closed');
      expect(closed.metadata.annotations?.['nginx.ingress.kubernetes.io/denylist-source-range']).toBe('0.0.0.0/0,::/0');
      const [apiSpec, closedSpec] = [api.spec as IngressSpec, closed.spec as IngressSpec];
      expect(closedSpec.rules[0]?.http.paths).toEqual([expect.objectContaining({ path: '/metrics', pathType: 'Exact' })]);
      expect(closedSpec.rules[0]?.host).toBe(apiSpec.rules[0]?.host);
      expect(closedSpec.tls).toEqual(apiSpec.tls);
    }
  });

  it('pods run as the image\'s non-root user with no capability', () => {
    expect(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^USER node$/m);
    for (const d of [api, worker]) {
      const pod = (d.spec as { template: { spec: { securityContext: { runAsNonRoot: boolean; runAsUser: number } } } }).template.spec.securityContext;
      // The node image's `node` user.
      expect(pod).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(container(d)).toMatchObject({ securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } });
    }
  });
});
