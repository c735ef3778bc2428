/**
 * @module plugin-openapi/operations/systemOperations
 * Builders of root and system operations: `/access`, `upload-instructions` (CMS 4), and the jobs endpoints
 * mounted on the jobs collection.
 */
import type { OpenAPIV3_1 } from '../openapi.js'
import { objectSchema, ref } from '../schemas/jsonSchema.js'
import { operation, pathParam, type BuildContext, type BuiltOperations, type Scope } from './context.js'
import { errors, json, message } from './responses.js'

const q = (name: string, schema: OpenAPIV3_1.SchemaObject, description: string): OpenAPIV3_1.ParameterObject => ({ name, in: 'query', description, schema })

/**
 * Jobs endpoints refuse anonymous callers with Payload's default `jobs.access.run` (`defaultAccess`: a user is
 * needed, filled in by config defaults); a custom access function may let anyone in.
 */
function jobsSecurity(b: BuildContext) {
  const run = (b.config.jobs as { access?: { run?: unknown } } | undefined)?.access?.run
  return !run || (typeof run === 'function' && run.name === 'defaultAccess') ? b.security.required : b.security.optional
}

export const systemOperations = {
  access(b: BuildContext): BuiltOperations {
    return {
      '/access': operation({
        id: 'getAccess',
        summary: 'Permissions of the current user on every collection and global',
        tag: 'Access',
        responses: { 200: json('Permissions.', ref('Permissions')) },
        security: b.security.optional,
      }),
    }
  },
  createUploadInstructions(b: BuildContext): BuiltOperations {
    const body = objectSchema(
      {
        collectionSlug: { type: 'string' },
        docPrefix: { type: 'string' },
        filename: { type: 'string' },
        filesize: { type: 'integer', minimum: 0 },
        mimeType: { type: 'string' },
      },
      ['collectionSlug', 'filename', 'filesize', 'mimeType'],
    )
    const answer = {
      type: 'object',
      description:
        'Where to send the bytes (`type: http`) or which client handler runs (`type: dispatch`); `file` goes as the `file` field of the create or update request.',
      properties: { type: { type: 'string', enum: ['http', 'dispatch'] }, file: { type: 'object', additionalProperties: true } },
      required: ['type'],
      additionalProperties: true,
    }
    return {
      '/upload-instructions': operation({
        id: 'createUploadInstructions',
        summary: 'Ask where and how to upload a file',
        tag: 'Upload instructions',
        requestBody: { required: true, content: { 'application/json': { schema: body } } },
        responses: { 200: json('Instructions.', answer), ...errors(400, 401, 403) },
        security: b.security.required,
      }),
    }
  },
  putUploadInstructions(b: BuildContext): BuiltOperations {
    return {
      '/upload-instructions/{uploadId}': operation({
        id: 'putStagedUpload',
        summary: 'Send the bytes of a staged upload',
        tag: 'Upload instructions',
        parameters: [pathParam('uploadId', { type: 'string' })],
        requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
        responses: { 204: { description: 'Stored: the file can now be used in a create or update request.' }, ...errors(400, 401, 403, 404) },
        security: b.security.required,
      }),
    }
  },
  deleteUploadInstructions(b: BuildContext): BuiltOperations {
    return {
      '/upload-instructions/{uploadId}': operation({
        id: 'deleteStagedUpload',
        summary: 'Remove a staged upload',
        tag: 'Upload instructions',
        parameters: [pathParam('uploadId', { type: 'string' })],
        // 400 "Invalid or expired staged upload." for an ID Payload did not sign or that expired (4.0.0-canary.36).
        responses: { 204: { description: 'Removed.' }, ...errors(400, 401, 403, 404) },
        security: b.security.required,
      }),
    }
  },
  runJobs(b: BuildContext, s: Scope): BuiltOperations {
    const schema = objectSchema({ message: { type: 'string' }, noJobsRemaining: { type: 'boolean' }, remainingJobsFromQueried: { type: 'integer' } }, [
      'message',
    ])
    return {
      '/run': operation({
        id: 'runJobs',
        summary: 'Run queued jobs',
        tag: s.tag,
        parameters: [
          q('queue', { type: 'string' }, 'Queue to run (default `default`).'),
          q('limit', { type: 'integer', minimum: 1 }, 'Jobs to run at most.'),
          q('allQueues', { type: 'boolean' }, 'Run every queue.'),
          q('silent', { type: 'boolean' }, 'Do not log.'),
          q('disableScheduling', { type: 'boolean' }, 'Skip handling schedules first.'),
        ],
        responses: { 200: json('Done.', schema), ...errors(401), 500: json('A job run failed.', schema) },
        security: jobsSecurity(b),
      }),
    }
  },
  handleSchedules(b: BuildContext, s: Scope): BuiltOperations {
    const list = { type: 'array', items: {} }
    const schema = objectSchema({ message: { type: 'string' }, errored: list, queued: list, skipped: list }, ['message'])
    return {
      '/handle-schedules': operation({
        id: 'handleJobSchedules',
        summary: 'Queue the jobs whose schedule is due',
        tag: s.tag,
        parameters: [q('queue', { type: 'string' }, 'Queue whose schedules are handled.'), q('allQueues', { type: 'boolean' }, 'Handle every queue.')],
        responses: { 200: json('Done.', schema), ...errors(401), 500: json('No schedules are configured.', message()) },
        security: jobsSecurity(b),
      }),
    }
  },
}
