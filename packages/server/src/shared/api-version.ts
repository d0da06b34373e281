/** The version of the HTTP API: the Api-Version header of every response and the OpenAPI document's info.version. */
export const API_VERSION = '1.0.0';
