// A stand-in for the Gemini API's generateContent / streamGenerateContent
// (POST /v1beta/models/{model}:streamGenerateContent?alt=sse), for Gemini CLI. It refuses what
// the real API refuses, by the documented rules cited beside each, and streams the scripted
// model's move as GenerateContentResponse chunks: https://ai.google.dev/api/generate-content
import { FakeServer } from './http.mjs';

const status = (code, status, message) => ({ error: { code, message, status } });

export function geminiRuleBroken(headers, query, body) {
  // https://ai.google.dev/gemini-api/docs/api-key: the key goes in x-goog-api-key (or ?key=).
  if (!headers['x-goog-api-key'] && !query.get('key') && !/^Bearer \S/.test(headers.authorization ?? '')) return ['auth', 403, status(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.")];
  // https://ai.google.dev/api/generate-content#request-body: contents is required.
  if (!Array.isArray(body?.contents) || body.contents.length === 0) return ['contents', 400, status(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified')];
  // https://ai.google.dev/api/caching#Content: role is "user" or "model".
  for (const [i, c] of body.contents.entries()) {
    if (c.role !== undefined && c.role !== 'user' && c.role !== 'model') return ['role', 400, status(400, 'INVALID_ARGUMENT', `Please use a valid role: user, model. (contents[${i}].role: ${c.role})`)];
    if (!Array.isArray(c.parts) || c.parts.length === 0) return ['parts', 400, status(400, 'INVALID_ARGUMENT', `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`)];
  }
  // https://ai.google.dev/gemini-api/docs/function-calling: the function call turn follows a
  // user turn or a function response turn, and the next turn answers each call with a
  // functionResponse (the API refuses a mismatch with these messages).
  for (let i = 0; i < body.contents.length; i++) {
    const calls = body.contents[i].parts.filter((p) => p.functionCall).length;
    if (calls === 0) continue;
    if (i === 0 || body.contents[i - 1].role === 'model') return ['call-after-user', 400, status(400, 'INVALID_ARGUMENT', 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.')];
    const next = body.contents[i + 1];
    if (next) {
      const responses = next.parts.filter((p) => p.functionResponse).length;
      if (responses !== calls) return ['responses-match-calls', 400, status(400, 'INVALID_ARGUMENT', 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.')];
    }
  }
  return undefined;
}

export function startGemini(script) {
  const server = new FakeServer('gemini', (req, reply) => {
    const m = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(req.path);
    if (req.method !== 'POST' || !m) return reply.json(404, status(404, 'NOT_FOUND', `${req.method} ${req.path} is not found`));
    const [, model, method] = m;
    if (method === 'countTokens') return reply.json(200, { totalTokens: Math.ceil(req.raw.length / 4) });
    const broken = geminiRuleBroken(req.headers, req.query, req.body);
    if (broken) return reply.refuse(broken[0], broken[1], broken[2]);
    const names = (req.body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    const move = script.next({ toolNames: names, text: req.raw });
    const part = move.kind === 'text' ? { text: move.text } : { functionCall: { name: move.name, args: move.input } };
    const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 5, totalTokenCount: 105 }, modelVersion: model, responseId: `fake-${server.received.length}` };
    // ?alt=sse: server-sent events, one GenerateContentResponse per event.
    if (method === 'streamGenerateContent' && req.query.get('alt') === 'sse') return reply.sse([[undefined, chunk]]);
    if (method === 'streamGenerateContent') return reply.json(200, [chunk]);
    return reply.json(200, chunk);
  });
  return server.start();
}
