import { Type } from 'typebox';

/** The path parameters of a route on one object, /…/:id: longer ids are unknown objects anyway. */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 500 }) });
