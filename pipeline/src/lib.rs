//! The staged pipeline driver.
