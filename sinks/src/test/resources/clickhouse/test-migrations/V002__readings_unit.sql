ALTER TABLE ${DB}.readings ADD COLUMN unit String DEFAULT 'ms';
