//! The query engine (memoized, dependency-tracked, fingerprinted, persisted, re-validated
//! red-green) and the query-based driver.
