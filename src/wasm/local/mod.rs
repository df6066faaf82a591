//! Lectern's own decoder for a page's Worker (feature `local`,
//! `lectern_local.js`): `LocalDecoder`.

mod local_decoder;
