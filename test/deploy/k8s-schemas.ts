// Validates rendered objects against the schemas of the API server they are sent to: the
// Kubernetes OpenAPI (kubernetes-models), KEDA's and the Prometheus operator's CRDs
// (@kubernetes-models/keda, /prometheus-operator), pinned in package.json. Their validators
// check the fields they know but let unknown ones through, which the API server would refuse
// (kubectl's strict field validation): so each object is validated through a proxy that records
// which fields the schema read, and any field it never read is reported as unknown.
import { Model } from '@kubernetes-models/base';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { PodMonitor, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { ObjectMeta } from '@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta';

type ModelClass = { apiVersion: string; kind: string; prototype: Model<unknown> };

const MODELS: ModelClass[] = [
  ConfigMap,
  Namespace,
  PersistentVolumeClaim,
  Secret,
  Service,
  ServiceAccount,
  Deployment,
  StatefulSet,
  HorizontalPodAutoscaler,
  Ingress,
  NetworkPolicy,
  PodDisruptionBudget,
  ScaledObject,
  PodMonitor,
  ServiceMonitor,
];
const byType = new Map(MODELS.map((m) => [`${m.apiVersion} ${m.kind}`, m]));
/** CRD schemas leave `metadata` an untyped object: it is checked as ObjectMeta on its own. */
const CUSTOM = new Set<ModelClass>([ScaledObject, PodMonitor, ServiceMonitor]);

interface Reads {
  read: Set<PropertyKey>;
  /** The validator walked every key (a map's additionalProperties): all are known. */
  enumerated: boolean;
}

/** Runs `validate` on a proxy of `data`; returns its errors and what it read of each object. */
function validateRecording(validate: (this: unknown) => void, data: object): { errors: string[]; reads: WeakMap<object, Reads> } {
  const reads = new WeakMap<object, Reads>();
  const of = (target: object) => {
    let r = reads.get(target);
    if (!r) reads.set(target, (r = { read: new Set(), enumerated: false }));
    return r;
  };
  const proxies = new WeakMap<object, object>();
  const wrap = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    let proxy = proxies.get(value);
    if (!proxy) {
      proxy = new Proxy(value, {
        get: (target, key, receiver) => {
          of(target).read.add(key);
          return wrap(Reflect.get(target, key, receiver));
        },
        has: (target, key) => {
          of(target).read.add(key);
          return Reflect.has(target, key);
        },
        ownKeys: (target) => {
          of(target).enumerated = true;
          return Reflect.ownKeys(target);
        },
      });
      proxies.set(value, proxy);
    }
    return proxy;
  };
  try {
    validate.call(wrap(data));
    return { errors: [], reads };
  } catch (err) {
    return { errors: [(err as Error).message], reads };
  }
}

/** Fields of `data` the validator never looked at, as paths. */
function unknownFields(data: unknown, reads: WeakMap<object, Reads>, at: string, skip: ReadonlySet<string> = new Set()): string[] {
  if (data === null || typeof data !== 'object') return [];
  if (Array.isArray(data)) return data.flatMap((item, i) => unknownFields(item, reads, `${at}/${i}`));
  const r = reads.get(data);
  const found: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (skip.has(key)) continue;
    if (!r?.enumerated && !r?.read.has(key)) found.push(`${at}/${key}: unknown field`);
    else found.push(...unknownFields(value, reads, `${at}/${key}`));
  }
  return found;
}

function check(model: { prototype: Model<unknown> }, data: object, at: string, skip?: ReadonlySet<string>): string[] {
  const { errors, reads } = validateRecording(model.prototype.validate, data);
  return [...errors.map((e) => `${at} ${e}`), ...unknownFields(data, reads, at, skip)];
}

/** What a strict API server would refuse in this object: [] when it is valid. */
export function validateObject(object: { apiVersion: string; kind: string; metadata?: unknown; [field: string]: unknown }): string[] {
  const model = byType.get(`${object.apiVersion} ${object.kind}`);
  if (!model) return [`no schema for ${object.apiVersion} ${object.kind}`];
  if (!CUSTOM.has(model)) return check(model, object, '');
  return [...check(model, object, '', new Set(['metadata'])), ...check(ObjectMeta, (object.metadata ?? {}) as object, '/metadata')];
}
