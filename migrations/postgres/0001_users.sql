-- Users (spec 1 §2.1) and the lockout columns of DECISIONS.md.
CREATE TABLE users (
  id                   UUID PRIMARY KEY,
  email                TEXT NOT NULL UNIQUE CHECK (email = lower(email)),
  display_name         TEXT NOT NULL,
  profile_picture_url  TEXT,
  provider             TEXT NOT NULL,
  provider_subject     TEXT NOT NULL,
  is_active            BOOLEAN NOT NULL DEFAULT TRUE,
  is_admin             BOOLEAN NOT NULL DEFAULT FALSE,
  password_hash        TEXT,
  must_change_password BOOLEAN NOT NULL DEFAULT FALSE,
  failed_login_count   INTEGER NOT NULL DEFAULT 0,
  locked_until         TIMESTAMPTZ,
  theme                TEXT NOT NULL DEFAULT 'system' CHECK (theme IN ('light', 'dark', 'system')),
  created_at           TIMESTAMPTZ NOT NULL,
  updated_at           TIMESTAMPTZ NOT NULL,
  last_login_at        TIMESTAMPTZ,
  UNIQUE (provider, provider_subject)
);
