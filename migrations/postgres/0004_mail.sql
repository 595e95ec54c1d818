-- Mail claims (spec 1 §5.4 item 8): one row per (user, kind, act), inserted before a message is
-- sent, so a message goes out at most once. A row left 'claimed' (the process died mid-send) is
-- never retried: a second copy of a password mail is worse than none.
CREATE TABLE mail_claims (
  user_id     UUID NOT NULL REFERENCES users (id),
  kind        TEXT NOT NULL CHECK (kind IN ('welcome', 'password_reset', 'new_user')),
  act_id      TEXT NOT NULL,
  recipient   TEXT NOT NULL,
  status      TEXT NOT NULL DEFAULT 'claimed' CHECK (status IN ('claimed', 'sent', 'failed')),
  message_id  TEXT,
  error       TEXT,
  claimed_at  TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ,
  PRIMARY KEY (user_id, kind, act_id)
);
