CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
CREATE TABLE import_runs (
	id INTEGER NOT NULL, 
	file TEXT NOT NULL, 
	started DATETIME NOT NULL, 
	finished DATETIME, 
	status VARCHAR(16) NOT NULL, 
	read INTEGER NOT NULL, 
	stored INTEGER NOT NULL, 
	duplicates INTEGER NOT NULL, 
	rejected INTEGER NOT NULL, 
	error TEXT, 
	CONSTRAINT pk_import_runs PRIMARY KEY (id)
);
CREATE TABLE study_composers (
	study_id INTEGER NOT NULL, 
	position SMALLINT NOT NULL, 
	composer_id INTEGER NOT NULL, 
	CONSTRAINT pk_study_composers PRIMARY KEY (study_id, position), 
	CONSTRAINT fk_study_composers_composer_id_composers FOREIGN KEY(composer_id) REFERENCES composers (id) ON DELETE RESTRICT, 
	CONSTRAINT fk_study_composers_study_id_studies FOREIGN KEY(study_id) REFERENCES studies (id) ON DELETE CASCADE
);
CREATE TABLE rejects (
	id INTEGER NOT NULL, 
	raw BLOB NOT NULL, 
	raw_hash VARCHAR(64) NOT NULL, 
	reason TEXT NOT NULL, 
	run_id INTEGER, 
	file TEXT, 
	line INTEGER, 
	"offset" BIGINT, 
	CONSTRAINT pk_rejects PRIMARY KEY (id), 
	CONSTRAINT fk_rejects_run_id_import_runs FOREIGN KEY(run_id) REFERENCES import_runs (id) ON DELETE SET NULL, 
	CONSTRAINT uq_rejects_raw_hash UNIQUE (raw_hash)
);
CREATE TABLE materials (
	id INTEGER NOT NULL, 
	signature VARCHAR(40) NOT NULL, 
	gbr VARCHAR(7) NOT NULL, 
	pieces VARCHAR(4) NOT NULL, 
	wq SMALLINT NOT NULL, 
	wr SMALLINT NOT NULL, 
	wb SMALLINT NOT NULL, 
	wn SMALLINT NOT NULL, 
	wp SMALLINT NOT NULL, 
	bq SMALLINT NOT NULL, 
	br SMALLINT NOT NULL, 
	bb SMALLINT NOT NULL, 
	bn SMALLINT NOT NULL, 
	bp SMALLINT NOT NULL, 
	men SMALLINT NOT NULL, 
	CONSTRAINT pk_materials PRIMARY KEY (id), 
	CONSTRAINT uq_materials_signature UNIQUE (signature)
);
CREATE TABLE positions (
	similar BIGINT NOT NULL, 
	study_id INTEGER NOT NULL, 
	node INTEGER NOT NULL, 
	image SMALLINT NOT NULL, 
	ply INTEGER NOT NULL, 
	main BOOLEAN NOT NULL, 
	material_id INTEGER NOT NULL, 
	CONSTRAINT pk_positions PRIMARY KEY (similar, study_id, node)
)
 WITHOUT ROWID

;
CREATE TABLE study_materials (
	material_id INTEGER NOT NULL, 
	study_id INTEGER NOT NULL, 
	ends BOOLEAN NOT NULL, 
	CONSTRAINT pk_study_materials PRIMARY KEY (material_id, study_id)
)
 WITHOUT ROWID

;
CREATE TABLE study_index (
	study_id INTEGER NOT NULL, 
	positions INTEGER NOT NULL, boards BLOB, moves BLOB, seen_wp BIGINT, seen_wn BIGINT, seen_wb BIGINT, seen_wr BIGINT, seen_wq BIGINT, seen_wk BIGINT, seen_bp BIGINT, seen_bn BIGINT, seen_bb BIGINT, seen_br BIGINT, seen_bq BIGINT, seen_bk BIGINT, occupancy BLOB, 
	CONSTRAINT pk_study_index PRIMARY KEY (study_id), 
	CONSTRAINT fk_study_index_study_id_studies FOREIGN KEY(study_id) REFERENCES studies (id) ON DELETE CASCADE
)
 WITHOUT ROWID

;
CREATE TABLE checks (
	study_id INTEGER NOT NULL, 
	verdict VARCHAR(10) NOT NULL, 
	table_plies INTEGER NOT NULL, 
	engine_plies INTEGER NOT NULL, 
	claim_ply INTEGER, 
	error_ply INTEGER, 
	tables_men SMALLINT, 
	engine TEXT, 
	settings VARCHAR(64) NOT NULL, 
	checked DATETIME NOT NULL, 
	note TEXT, 
	plies JSON NOT NULL, checked_from INTEGER, reason TEXT, 
	CONSTRAINT pk_checks PRIMARY KEY (study_id), 
	CONSTRAINT fk_checks_study_id_studies FOREIGN KEY(study_id) REFERENCES studies (id) ON DELETE CASCADE
);
CREATE TABLE study_themes (
	id INTEGER NOT NULL, 
	study_id INTEGER NOT NULL, 
	theme VARCHAR(64) NOT NULL, 
	ply INTEGER, 
	detail TEXT, 
	source VARCHAR(4) NOT NULL, 
	CONSTRAINT pk_study_themes PRIMARY KEY (id), 
	CONSTRAINT fk_study_themes_study_id_studies FOREIGN KEY(study_id) REFERENCES studies (id) ON DELETE CASCADE
);
CREATE TABLE "composers" (
	id INTEGER NOT NULL, 
	name TEXT NOT NULL, 
	"key" TEXT NOT NULL, 
	person_id INTEGER, 
	surname_key TEXT, 
	given_key TEXT, 
	given_initial VARCHAR(4), 
	CONSTRAINT pk_composers PRIMARY KEY (id), 
	CONSTRAINT uq_composers_name UNIQUE (name), 
	CONSTRAINT fk_composers_person_id_persons FOREIGN KEY(person_id) REFERENCES persons (id) ON DELETE SET NULL
);
CREATE TABLE composer_decisions (
	id INTEGER NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	name TEXT NOT NULL, 
	other TEXT NOT NULL, 
	made DATETIME NOT NULL, 
	CONSTRAINT pk_composer_decisions PRIMARY KEY (id)
);
CREATE TABLE study_moves (
	"key" SMALLINT NOT NULL, 
	study_id INTEGER NOT NULL, 
	main BOOLEAN NOT NULL, 
	CONSTRAINT pk_study_moves PRIMARY KEY ("key", study_id)
)
 WITHOUT ROWID

;
CREATE TABLE "studies" (
	id INTEGER NOT NULL, 
	gbr VARCHAR(7) NOT NULL, 
	pieces VARCHAR(4) NOT NULL, 
	wq SMALLINT NOT NULL, 
	wr SMALLINT NOT NULL, 
	wb SMALLINT NOT NULL, 
	wn SMALLINT NOT NULL, 
	wp SMALLINT NOT NULL, 
	bq SMALLINT NOT NULL, 
	br SMALLINT NOT NULL, 
	bb SMALLINT NOT NULL, 
	bn SMALLINT NOT NULL, 
	bp SMALLINT NOT NULL, 
	men SMALLINT NOT NULL, 
	signature VARCHAR(40) NOT NULL, 
	fen TEXT NOT NULL, 
	turn VARCHAR(1) NOT NULL, 
	zobrist BIGINT NOT NULL, 
	stipulation VARCHAR(8), 
	result TEXT, 
	composer_names TEXT, 
	source TEXT, 
	year INTEGER, 
	award TEXT, 
	award_kind VARCHAR(16), 
	award_rank INTEGER, 
	pgn BLOB NOT NULL, 
	encoding VARCHAR(16) NOT NULL, 
	content_hash VARCHAR(64) NOT NULL, 
	valid BOOLEAN, 
	errors JSON, 
	run_id INTEGER, 
	file TEXT, 
	line INTEGER, 
	"offset" BIGINT, 
	mate_in INTEGER, 
	eg TEXT, 
	note TEXT, 
	version VARCHAR(12), 
	number TEXT, 
	reprint TEXT, 
	kind VARCHAR(8) DEFAULT 'study' NOT NULL, 
	CONSTRAINT pk_studies PRIMARY KEY (id), 
	CONSTRAINT fk_studies_run_id_import_runs FOREIGN KEY(run_id) REFERENCES import_runs (id) ON DELETE SET NULL, 
	CONSTRAINT uq_studies_content_hash UNIQUE (content_hash)
);
CREATE TABLE "persons" (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	name TEXT NOT NULL
);
CREATE INDEX ix_checks_verdict ON checks (verdict);
CREATE INDEX ix_composers_key ON composers ("key");
CREATE INDEX ix_composers_person_id ON composers (person_id);
CREATE INDEX ix_composers_surname_key ON composers (surname_key);
CREATE INDEX ix_rejects_run_id ON rejects (run_id);
CREATE INDEX ix_studies_gbr ON studies (gbr);
CREATE INDEX ix_studies_kind ON studies (kind);
CREATE INDEX ix_studies_men_wq_wr_wb_wn_wp_bq_br_bb_bn_bp ON studies (men, wq, wr, wb, wn, wp, bq, br, bb, bn, bp);
CREATE INDEX ix_studies_pieces ON studies (pieces);
CREATE INDEX ix_studies_signature ON studies (signature);
CREATE INDEX ix_studies_stipulation ON studies (stipulation);
CREATE INDEX ix_studies_valid ON studies (valid);
CREATE INDEX ix_studies_year ON studies (year);
CREATE INDEX ix_studies_zobrist ON studies (zobrist);
CREATE INDEX ix_study_composers_composer_id_study_id ON study_composers (composer_id, study_id);
CREATE INDEX ix_study_themes_study_id ON study_themes (study_id);
CREATE INDEX ix_study_themes_theme_study_id ON study_themes (theme, study_id);
CREATE UNIQUE INDEX uq_composer_decisions_kind_name_other ON composer_decisions (kind, name, other);
INSERT INTO alembic_version (version_num) VALUES ('0018');
