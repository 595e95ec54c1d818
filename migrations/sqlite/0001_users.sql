-- Users (spec 1 §2.1) and the lockout columns of DECISIONS.md. Booleans are 0/1 integers,
-- timestamps ISO 8601 UTC text written by the application.
CREATE TABLE users (
  id                   TEXT PRIMARY KEY,
  email                TEXT NOT NULL UNIQUE CHECK (email = lower(email)),
  display_name         TEXT NOT NULL,
  profile_picture_url  TEXT,
  provider             TEXT NOT NULL,
  provider_subject     TEXT NOT NULL,
  is_active            INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
  is_admin             INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
  password_hash        TEXT,
  must_change_password INTEGER NOT NULL DEFAULT 0 CHECK (must_change_password IN (0, 1)),
  failed_login_count   INTEGER NOT NULL DEFAULT 0,
  locked_until         TEXT,
  theme                TEXT NOT NULL DEFAULT 'system' CHECK (theme IN ('light', 'dark', 'system')),
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL,
  last_login_at        TEXT,
  UNIQUE (provider, provider_subject)
);
