// The routes an app registers, taken from Fastify itself (test/auth: every route is covered
// without anyone remembering to list it).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, HTTPMethods, RouteOptions } from 'fastify';
import { buildTestApp, type TestApp } from './app.ts';

export interface Route {
  method: string;
  url: string;
}

/**
 * Builds the test app while an onRoute hook records every route. Fastify publishes each new
 * instance on the `fastify.initialization` channel before any plugin runs, so the hook sees the
 * routes of every encapsulated scope, including the HEAD routes Fastify adds for each GET.
 */
export async function appWithRoutes(): Promise<{ app: TestApp; routes: Route[] }> {
  const routes: Route[] = [];
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route: RouteOptions) => {
      const methods: HTTPMethods[] = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) routes.push({ method, url: route.url });
    });
  };
  subscribe('fastify.initialization', onInit);
  try {
    return { app: await buildTestApp(null), routes };
  } finally {
    unsubscribe('fastify.initialization', onInit);
  }
}
