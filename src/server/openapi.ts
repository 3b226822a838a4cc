import { z } from 'zod';
import type { Operation } from '../operations/types.js';
import { usesEnvelope } from './envelope.js';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
};

const ErrorBody = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: {
      type: 'string',
      description:
        'validation_error, unauthorized, forbidden, not_found, conflict, payload_too_large, unsupported_media_type, invalid_json, not_implemented, internal_error, ...',
    },
    message: { type: 'string' },
    details: { description: 'For validation_error: [{path, message}], one per bad field' },
  },
};

const errorResponses = (envelope: boolean): Record<string, unknown> => {
  const ref = {
    $ref: envelope ? '#/components/schemas/ErrorEnvelope' : '#/components/schemas/ErrorResponse',
  };
  const content = { 'application/json': { schema: ref } };
  return {
    400: { description: 'Validation failed (details name each field), or malformed JSON', content },
    401: { description: 'No credential, or an unknown one', content },
    403: {
      description:
        'A token used on another workspace, a foreign Host header, or a cross-origin request',
      content,
    },
    404: { description: 'Not found (the message names what)', content },
    409: { description: 'Conflict (duplicate name, resource in use)', content },
    413: { description: 'Body over 1 MiB', content },
    415: { description: 'Body not sent as application/json', content },
    500: { description: 'Unexpected failure; the answer carries the request id', content },
  };
};

/** One operation's entry in the document: its parameters, request body and responses. */
function operationEntry(op: Operation, http: NonNullable<Operation['http']>, path: string) {
  const envelope = usesEnvelope(path);
  const parameters = [
    ...Object.entries(op.params).map(([name, s]) => ({
      name,
      in: 'path',
      required: true,
      schema: toSchema(s as z.ZodType, 'input'),
    })),
    ...Object.entries(op.query).map(([name, s]) => {
      const schema = toSchema(s as z.ZodType, 'input');
      return {
        name,
        in: 'query',
        required: !(s as z.ZodType).safeParse(undefined).success,
        description: schema.description,
        schema,
      };
    }),
  ];
  const data = op.output ? toSchema(op.output, 'output') : { type: 'object' };
  const status = String(http.status ?? 200);
  return {
    operationId: op.name,
    summary: op.summary,
    security: http.public ? [] : [{ bearer: [] }],
    parameters,
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: toSchema(z.strictObject(op.body), 'input') },
            },
          },
        }
      : {}),
    responses: {
      [status]: {
        description: 'Success',
        content: {
          'application/json': {
            schema: envelope
              ? {
                  type: 'object',
                  required: ['success', 'data'],
                  properties: { success: { const: true }, data },
                }
              : data,
          },
        },
      },
      ...errorResponses(envelope),
    },
  };
}

/** The interface's own routes (browser mode): any operation by name, and the engine's events. */
function interfaceRoutes(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  paths['/v1/operations/{name}'] = {
    post: {
      operationId: 'operations.invoke',
      summary:
        'Invoke any operation of this document by its operationId, with its parameters, query and body fields in one JSON object (what the desktop app does over IPC); answers {data}',
      security: [{ bearer: [] }],
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        200: {
          description: "The operation's answer",
          content: { 'application/json': { schema: { type: 'object', properties: { data: {} } } } },
        },
        ...errorResponses(false),
      },
    },
  };
  paths['/v1/events'] = {
    get: {
      operationId: 'events.stream',
      summary:
        'Server-sent events: every engine event ({type, at, data}) as it happens (simulation.progress, simulation.finished, execution.cancelled, alert.firing, notification, sync.finished, ...). API keys only.',
      security: [{ bearer: [] }],
      responses: {
        200: {
          description: 'An event stream',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...errorResponses(false),
      },
    },
  };
  return paths;
}

/** The OpenAPI 3.1 document, generated from the catalogue so it cannot drift from the routes. */
export function buildOpenApi(catalogue: Operation[]): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of catalogue) {
    if (!op.http) continue;
    const path = op.http.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][op.http.method.toLowerCase()] = operationEntry(op, op.http, path);
  }
  Object.assign(paths, interfaceRoutes());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Callbench local API',
      version: '1.0.0',
      description:
        'The local HTTP API of Callbench. Workspace paths (/api/v1/workspaces/{workspace_id}/...) answer {success: true, data} and ' +
        '{success: false, error: {code, message, details?}}; /v1 paths answer bare objects and {error: {code, message, details?}}. ' +
        'Every request carries Authorization: Bearer <credential>: an API key (any path) or a workspace access token (its workspace only).',
    },
    servers: [{ url: 'http://127.0.0.1:4477' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: ErrorBody,
        ErrorResponse: {
          type: 'object',
          required: ['error'],
          properties: { error: { $ref: '#/components/schemas/Error' } },
        },
        ErrorEnvelope: {
          type: 'object',
          required: ['success', 'error'],
          properties: { success: { const: false }, error: { $ref: '#/components/schemas/Error' } },
        },
      },
    },
    paths,
  };
}
