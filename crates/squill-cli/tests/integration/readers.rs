//! The readers on real data and on damage: the BSON corpus of the MongoDB
//! specifications, the shared Atlas dumps and exports, mongo-tools' test
//! files, and bad inputs made here. These call the library directly (they
//! test reading, not the `scan` command).

mod bad_input;
mod corpus;
mod shared;
