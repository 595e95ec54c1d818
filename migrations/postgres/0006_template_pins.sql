-- Template pins (spec 2 §3.1, §4.2): a stored pipeline version (a node's template) or a template
-- version (an import) pins one exact template version. The discard and purge of a template
-- version, and the entity delete, read this table to answer 409 `template.in_use` naming the
-- pinners. The pinner side has no foreign key (it is either kind); its owner writes and drops its
-- rows in the same transaction as the version they belong to. The pinned side references the
-- version row, so a pinned version can never be deleted underneath its pinners.
-- (On the integration branch this file is renumbered after the migrations merged before it.)
CREATE TABLE template_pins (
  pinner_kind      TEXT NOT NULL CHECK (pinner_kind IN ('pipeline', 'template')),
  pinner_id        UUID NOT NULL,
  pinner_version   INTEGER NOT NULL CHECK (pinner_version >= 1),
  template_id      UUID NOT NULL,
  template_version INTEGER NOT NULL CHECK (template_version >= 1),
  PRIMARY KEY (pinner_kind, pinner_id, pinner_version, template_id, template_version),
  FOREIGN KEY (template_id, template_version) REFERENCES template_versions (template_id, version)
);
CREATE INDEX template_pins_target ON template_pins (template_id, template_version);
