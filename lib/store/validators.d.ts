// Types for the validators scripts/build.mjs precompiles from schemas/*.schema.json.
export interface SchemaError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}
export interface Validator {
  (data: unknown): boolean;
  errors?: SchemaError[] | null;
}
export const task: Validator;
export const session: Validator;
export const turn: Validator;
export const statusChange: Validator;
export const config: Validator;
export const envelope: Validator;
export const violation: Validator;
export const decision: Validator;
export const lease: Validator;
