//! Child-process lifetime on Windows: each child is created in a new process
//! group without a window and put in a Job Object of its own that kills on
//! close (see `job` for the limits). The job handles are ours alone, so when
//! we exit, however we exit, every job closes and each server dies with all
//! the helpers it started; `kill_group` ends one job.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use tokio::process::{Child, Command};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectBasicAccountingInformation,
    JobObjectExtendedLimitInformation, QueryInformationJobObject, SetInformationJobObject,
    TerminateJobObject,
};

use super::job;

const _: () = assert!(
    job::KILL_ON_JOB_CLOSE
        == windows_sys::Win32::System::JobObjects::JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
);
const _: () = assert!(
    job::DIE_ON_UNHANDLED_EXCEPTION
        == windows_sys::Win32::System::JobObjects::JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
);
const _: () =
    assert!(job::CREATE_NO_WINDOW == windows_sys::Win32::System::Threading::CREATE_NO_WINDOW);
const _: () =
    assert!(job::CREATE_SUSPENDED == windows_sys::Win32::System::Threading::CREATE_SUSPENDED);
const _: () = assert!(
    job::CREATE_NEW_PROCESS_GROUP
        == windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP
);

/// A job handle, owned by the table below.
struct Job(HANDLE);

// SAFETY: a job handle is a kernel object reference, usable from any thread.
unsafe impl Send for Job {}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: the handle is ours and closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// Each running child's job, by its process id.
fn jobs() -> &'static Mutex<HashMap<u32, Job>> {
    static JOBS: OnceLock<Mutex<HashMap<u32, Job>>> = OnceLock::new();
    JOBS.get_or_init(Default::default)
}

/// A new job that kills its processes when its last handle closes.
fn new_job() -> std::io::Result<Job> {
    // SAFETY: null attributes and name make an unnamed job with default
    // security; the handle is checked before use.
    let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if handle.is_null() {
        return Err(std::io::Error::last_os_error());
    }
    let job = Job(handle);
    // SAFETY: a zeroed limit structure is valid; only the flags are set.
    let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    info.BasicLimitInformation.LimitFlags = job::LIMIT_FLAGS;
    // SAFETY: the pointer and size describe `info`, which outlives the call.
    let ok = unsafe {
        SetInformationJobObject(
            job.0,
            JobObjectExtendedLimitInformation,
            (&raw const info).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(job)
}

/// Spawns `cmd` in a new process group and a job of its own. The child is
/// created suspended and resumed only once it is in the job, so that no
/// helper it starts (`cmd.exe` running an npm shim starts `node.exe` at
/// once) is outside it. A child that cannot be put in its job is killed.
pub async fn spawn_group(mut cmd: Command) -> std::io::Result<Child> {
    cmd.creation_flags(job::CREATION_FLAGS | job::CREATE_SUSPENDED)
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let placed = place(&child);
    if let Err(e) = placed {
        let _ = child.start_kill();
        return Err(e);
    }
    Ok(child)
}

/// Puts the suspended `child` in a new job, then resumes it.
fn place(child: &Child) -> std::io::Result<()> {
    let (Some(process), Some(pid)) = (child.raw_handle(), child.id()) else {
        return Err(std::io::Error::other("the child has no process handle"));
    };
    let job = new_job()?;
    // SAFETY: both handles are live: the job's is ours, the process's is
    // the child's, held by `child`.
    if unsafe { AssignProcessToJobObject(job.0, process as HANDLE) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    if let Ok(mut jobs) = jobs().lock() {
        jobs.insert(pid, job);
    }
    resume(pid)
}

/// Resumes every thread of process `pid` (a process created suspended has
/// one, its main thread).
fn resume(pid: u32) -> std::io::Result<()> {
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
    };
    use windows_sys::Win32::System::Threading::{OpenThread, ResumeThread, THREAD_SUSPEND_RESUME};
    // SAFETY: the snapshot handle is checked and closed; each thread handle
    // is checked, used once and closed; the entry's size is set as the API
    // requires.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
        if snapshot.is_null() || snapshot as isize == -1 {
            return Err(std::io::Error::last_os_error());
        }
        let mut entry: THREADENTRY32 = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
        let mut resumed = 0;
        let mut more = Thread32First(snapshot, &mut entry) != 0;
        while more {
            if entry.th32OwnerProcessID == pid {
                let thread = OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID);
                if !thread.is_null() {
                    if ResumeThread(thread) != u32::MAX {
                        resumed += 1;
                    }
                    CloseHandle(thread);
                }
            }
            more = Thread32Next(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
        if resumed == 0 {
            return Err(std::io::Error::other(
                "the child's thread could not be resumed",
            ));
        }
    }
    Ok(())
}

/// Kills the job of the child with this process id: it and every process
/// it started.
pub fn kill_group(pid: u32) {
    let job = jobs().lock().ok().and_then(|mut j| j.remove(&pid));
    if let Some(job) = job {
        // SAFETY: the handle is live until `job` drops after this call.
        unsafe { TerminateJobObject(job.0, 1) };
    }
}

/// Kills one process (not its job).
pub fn kill_pid(pid: u32) {
    use windows_sys::Win32::System::Threading::{OpenProcess, PROCESS_TERMINATE, TerminateProcess};
    // SAFETY: OpenProcess returns a new handle or null, checked; it is
    // closed after use.
    unsafe {
        let handle = OpenProcess(PROCESS_TERMINATE, 0, pid);
        if !handle.is_null() {
            TerminateProcess(handle, 1);
            CloseHandle(handle);
        }
    }
}

/// How many bytes wait unread in a server's output: not asked on Windows,
/// where a wait reads the server's messages and progress instead.
pub fn unread_bytes(_fd: i32) -> usize {
    0
}

/// Whether any process of the child's job is still alive.
pub fn group_alive(pid: u32) -> bool {
    let Ok(jobs) = jobs().lock() else {
        return false;
    };
    let Some(job) = jobs.get(&pid) else {
        return false;
    };
    // SAFETY: a zeroed accounting structure is valid output space; the
    // pointer and size describe it.
    let mut info: JOBOBJECT_BASIC_ACCOUNTING_INFORMATION = unsafe { std::mem::zeroed() };
    let ok = unsafe {
        QueryInformationJobObject(
            job.0,
            JobObjectBasicAccountingInformation,
            (&raw mut info).cast(),
            std::mem::size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
            std::ptr::null_mut(),
        )
    };
    ok != 0 && info.ActiveProcesses > 0
}
