/**
 * @module plugin-openapi/openapi
 * The few OpenAPI 3.1 object shapes the generator builds. Deliberately loose (JSON Schema 2020-12 is open-ended);
 * consumers who want strict types run openapi-typescript on the output.
 */
/* eslint-disable @typescript-eslint/no-namespace */
export namespace OpenAPIV3_1 {
  export type SchemaObject = { [key: string]: unknown }
  export interface InfoObject {
    title: string
    version: string
    description?: string
    [key: string]: unknown
  }
  export interface ServerObject {
    url: string
    description?: string
    [key: string]: unknown
  }
  export interface ParameterObject {
    name: string
    in: 'query' | 'path' | 'header' | 'cookie'
    description?: string
    required?: boolean
    schema?: SchemaObject
    style?: string
    explode?: boolean
    [key: string]: unknown
  }
  export interface ReferenceObject {
    $ref: string
  }
  export interface MediaTypeObject {
    schema?: SchemaObject
    encoding?: Record<string, unknown>
    [key: string]: unknown
  }
  export interface RequestBodyObject {
    description?: string
    required?: boolean
    content: Record<string, MediaTypeObject>
  }
  export interface ResponseObject {
    description: string
    content?: Record<string, MediaTypeObject>
    [key: string]: unknown
  }
  export interface OperationObject {
    operationId?: string
    summary?: string
    description?: string
    tags?: string[]
    parameters?: (ParameterObject | ReferenceObject)[]
    requestBody?: RequestBodyObject | ReferenceObject
    responses: Record<string, ResponseObject | ReferenceObject>
    security?: Record<string, string[]>[]
    [key: string]: unknown
  }
  export type PathItemObject = { [method: string]: OperationObject }
  export interface Document {
    openapi: '3.1.0'
    info: InfoObject
    jsonSchemaDialect?: string
    servers?: ServerObject[]
    tags?: { name: string; description?: string }[]
    paths: Record<string, PathItemObject>
    components: {
      schemas: Record<string, SchemaObject>
      parameters?: Record<string, ParameterObject>
      responses?: Record<string, ResponseObject>
      securitySchemes?: Record<string, Record<string, unknown>>
    }
    [key: string]: unknown
  }
}
