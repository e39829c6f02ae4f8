import * as z from './zod.js';

/**
 * A variable's text read as JSON, for the schema piped after it: text that is not JSON is one issue, "must be a
 * JSON object", naming the variable like any other (never a SyntaxError at the cold start).
 *
 * @example z.pipe(jsonText(), ApiRoleGrantsSchema)
 */
export const jsonText = () =>
  z.transform((text: string, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.issues.push({ code: 'custom', message: 'must be a JSON object', input: text });
      return z.NEVER;
    }
  });
