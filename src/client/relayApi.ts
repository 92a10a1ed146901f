// The relay's HTTP answers as both sides see them: the relay (src/server) produces these
// shapes and the dashboard (app/queries) reads them. Types only, so the app may import it
// without pulling in Node (eslint.config.js allows exactly this module).

/** One entry of `GET /api/sessions` and the answer of `GET /api/sessions/<id>`. */
export interface RelaySession {
  session_id: string;
  /** the session header's title; null before a header with one arrived */
  title: string | null;
  messages: number;
  last_seq: number;
  /** the last stored snapshot's turn; null while the session holds only its header */
  last_turn: number | null;
  created_at: string;
  updated_at: string;
}

/** `GET /api/sessions` */
export interface RelaySessionList {
  sessions: RelaySession[];
}
