// Renders deploy/kubernetes with `kubectl kustomize` (offline: no cluster is asked) and finds
// objects and containers in the result, for the deploy and scale tests.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../support/cluster.js';

export const KUBERNETES_DIR = path.join(ROOT, 'deploy', 'kubernetes');
export const LAYERS = ['base', 'overlays/dev', 'overlays/production'] as const;
export type Layer = (typeof LAYERS)[number];

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [key: string]: unknown;
}

export interface Probe {
  httpGet?: { path: string; port: string | number };
}
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}
export interface Container {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
}
export interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }[];
}

export function render(layer: Layer): K8sObject[] {
  const text = execFileSync('kubectl', ['kustomize', path.join(KUBERNETES_DIR, layer)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((doc) => doc.toJSON() as K8sObject);
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return found;
}

export function podSpec(deployment: K8sObject): PodSpec {
  return (deployment.spec as { template: { spec: PodSpec } }).template.spec;
}

/** The one container of a Deployment's pods. */
export function container(deployment: K8sObject): Container {
  const [only] = podSpec(deployment).containers;
  if (!only) throw new Error(`${deployment.metadata.name} has no container`);
  return only;
}

export const envValue = (c: Container, name: string): string | undefined => c.env?.find((e) => e.name === name)?.value;

export interface ScaleDownPolicy {
  type: string;
  value: number;
  periodSeconds: number;
}

/** The worker ScaledObject's scale-down and scale-up policies, as the HPA KEDA makes will apply them. */
export function workerScalePolicies(objects: K8sObject[]): { down: ScaleDownPolicy; up: ScaleDownPolicy; min: number; max: number } {
  const spec = find(objects, 'ScaledObject', 'warren-worker').spec as {
    minReplicaCount: number;
    maxReplicaCount: number;
    advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { policies: ScaleDownPolicy[] }; scaleUp: { policies: ScaleDownPolicy[] } } } };
  };
  const { behavior } = spec.advanced.horizontalPodAutoscalerConfig;
  const [down] = behavior.scaleDown.policies;
  const [up] = behavior.scaleUp.policies;
  if (!down || !up) throw new Error('the worker ScaledObject names no scale policies');
  return { down, up, min: spec.minReplicaCount, max: spec.maxReplicaCount };
}
