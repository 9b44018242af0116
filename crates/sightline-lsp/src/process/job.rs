//! The Job Object settings each child runs under on Windows (see `windows`),
//! as plain values so that their choice is tested on every platform. The
//! values are the Windows SDK's; on Windows the build checks them against
//! `windows-sys`.

/// `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`.
pub const KILL_ON_JOB_CLOSE: u32 = 0x0000_2000;
/// `JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION`.
pub const DIE_ON_UNHANDLED_EXCEPTION: u32 = 0x0000_0400;
/// `JOB_OBJECT_LIMIT_BREAKAWAY_OK`: left out of the limits, which the
/// tests check.
#[cfg(test)]
pub const BREAKAWAY_OK: u32 = 0x0000_0800;
/// `JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK`: left out too.
#[cfg(test)]
pub const SILENT_BREAKAWAY_OK: u32 = 0x0000_1000;

/// The job's limits. Kill on close: the job's last handle is ours, so the
/// whole tree (a server and every helper it starts) dies when we exit,
/// however we exit. Die on an unhandled exception: no error-reporting
/// dialog keeps a crashed server's process alive. No breakaway: a server's
/// own children stay in the job.
pub const LIMIT_FLAGS: u32 = KILL_ON_JOB_CLOSE | DIE_ON_UNHANDLED_EXCEPTION;

/// `CREATE_NEW_PROCESS_GROUP`: a console Ctrl-C meant for us does not reach
/// the servers before we can shut them down.
pub const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
/// `CREATE_NO_WINDOW`: a console server opens no window of its own.
pub const CREATE_NO_WINDOW: u32 = 0x0800_0000;

/// `CREATE_SUSPENDED`: a child starts nothing until it is in its job.
pub const CREATE_SUSPENDED: u32 = 0x0000_0004;

/// The flags every child is created with (`CREATE_SUSPENDED` is added at
/// spawn, and the child resumed once in its job).
pub const CREATION_FLAGS: u32 = CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_s_tree_dies_with_the_job_and_cannot_leave_it() {
        assert_eq!(LIMIT_FLAGS, 0x2400);
        assert_ne!(LIMIT_FLAGS & KILL_ON_JOB_CLOSE, 0);
        assert_eq!(LIMIT_FLAGS & (BREAKAWAY_OK | SILENT_BREAKAWAY_OK), 0);
        assert_eq!(CREATION_FLAGS, 0x0800_0200);
        assert_eq!(CREATION_FLAGS & CREATE_SUSPENDED, 0);
    }
}
