// No Docker engine runs here, so the production topology is checked by reading it: the compose
// file's services, volumes and health checks, the Dockerfile's roles, and nginx's syntax.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../support/cluster.js';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  volumes?: string[];
  healthcheck?: unknown;
  restart?: string;
  deploy?: { replicas?: number };
  ports?: string[];
  environment?: Record<string, string>;
}

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };

describe('docker-compose.yml', () => {
  it('runs redis with the project redis.conf on a volume, scalable api and worker, and nginx on 2026', () => {
    const { redis, api, worker, nginx } = compose.services;
    expect(redis?.volumes).toEqual(expect.arrayContaining(['./redis.conf:/usr/local/etc/redis/redis.conf:ro', 'redis-data:/data']));
    expect(redis?.healthcheck).toBeTruthy();
    expect(api?.command).toEqual(['node', 'dist/src/main.js']);
    expect(worker?.command).toEqual(['node', 'dist/workers/main.js']);
    expect(api?.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(worker?.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(api?.healthcheck).toBeTruthy();
    for (const s of [redis, api, worker, nginx]) expect(s?.restart).toBe('unless-stopped');
    expect(nginx?.ports).toEqual(['2026:2026']);
    expect(nginx?.volumes).toEqual(['./deploy/nginx.conf:/etc/nginx/nginx.conf:ro']);
    expect(api?.volumes).toEqual(expect.arrayContaining(['warren-home:/data/warren', 'warren-config:/data/config']));
    expect(worker?.volumes).toEqual(api?.volumes);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['redis-data', 'warren-home', 'warren-config']));
  });

  it('builds one Node 24 slim image with LibreOffice and bubblewrap', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:24-slim/m);
    expect(dockerfile).toMatch(/libreoffice-writer-nogui/);
    expect(dockerfile).toMatch(/bubblewrap/);
  });

  it('runs both roles on jemalloc, which gives back what a load freed (the soak in bench/README)', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/libjemalloc2/);
    const preload = /LD_PRELOAD=(\S+)/.exec(dockerfile)?.[1];
    expect(preload).toBe('/usr/local/lib/libjemalloc.so.2');
    expect(dockerfile).toContain(`ln -s "$(ls /usr/lib/*-linux-gnu/libjemalloc.so.2 | head -n 1)" ${preload}`);
  });

  it('ships an nginx.conf that nginx accepts', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'warren-nginx-'));
    // Docker's DNS name `api` does not resolve here; point it at loopback for the syntax check.
    const conf = readFileSync(path.join(ROOT, 'deploy', 'nginx.conf'), 'utf8').replace('server api:2026', 'server 127.0.0.1:2026').replace(/^\s*resolver .*$/m, '');
    try {
      writeFileSync(path.join(dir, 'nginx.conf'), `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\n${conf}`);
      expect(() => execFileSync('nginx', ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'pipe' })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
