-- SWP feeds: inception, the settled-hour replay log, the saved index state and every published tick.
CREATE TABLE feed_meta (
  feed TEXT PRIMARY KEY,
  inception_ms BIGINT NOT NULL
);

CREATE TABLE feed_state (
  feed TEXT PRIMARY KEY,
  cumulative TEXT NOT NULL,
  k TEXT NOT NULL,
  settled_through_ms BIGINT NOT NULL
);

CREATE TABLE feed_hours (
  feed TEXT NOT NULL,
  hour_end_ms BIGINT NOT NULL,
  rate TEXT NOT NULL,
  PRIMARY KEY (feed, hour_end_ms)
);

CREATE TABLE feed_ticks (
  feed TEXT NOT NULL,
  ts BIGINT NOT NULL,
  tick TEXT NOT NULL,
  PRIMARY KEY (feed, ts)
);
