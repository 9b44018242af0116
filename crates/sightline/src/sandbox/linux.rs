//! Linux's confinement, `sightline __sandbox`: the launcher every sandboxed
//! child starts through. It restricts its own process with Landlock (and, without
//! `--network`, a seccomp filter against internet sockets), then becomes the
//! program, so the rules hold for the program and everything it starts.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The running kernel's Landlock ABI version, or `None` when it has none.
pub fn kernel_abi() -> Option<i64> {
    static ABI: OnceLock<Option<i64>> = OnceLock::new();
    *ABI.get_or_init(|| {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
        // SAFETY: the documented version query: no pointers are read.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        (v > 0).then_some(v)
    })
}

/// `sightline __sandbox --mode M [--write DIR]... [--network] -- PROGRAM ARGS...`:
/// restricts this process with Landlock (and, without `--network`, a
/// seccomp filter against internet sockets), then becomes PROGRAM. Never
/// returns.
pub fn launch(args: &[String]) -> ! {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
        path_beneath_rules,
    };
    use std::os::unix::process::CommandExt;

    let fail = |m: String| -> ! {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("sightline sandbox: {m}\n").as_bytes(),
        );
        std::process::exit(126)
    };
    let Some(sep) = args.iter().position(|a| a == "--") else {
        fail(
            "usage: sightline __sandbox --mode MODE [--write DIR]... [--network] -- PROGRAM ARGS..."
                .into(),
        )
    };
    let (opts, rest) = (&args[..sep], &args[sep + 1..]);
    let Some(program) = rest.first() else {
        fail("no program to run".into())
    };
    let mut writable: Vec<PathBuf> = Vec::new();
    let mut network = false;
    let mut i = 0;
    while i < opts.len() {
        match opts[i].as_str() {
            "--mode" => i += 1,
            "--network" => network = true,
            "--write" => {
                if let Some(d) = opts.get(i + 1) {
                    writable.push(PathBuf::from(d));
                }
                i += 1;
            }
            other => fail(format!("unknown option {other}")),
        }
        i += 1;
    }
    // Landlock skips paths that do not exist: make them first.
    for d in &writable {
        let _ = std::fs::create_dir_all(d);
    }
    let abi = ABI::V7;
    // Handling TCP bind and connect with no rule allowing any port refuses
    // them all; a kernel older than ABI v4 skips this (best effort), and
    // the seccomp filter below still holds.
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi));
    if !network {
        ruleset = ruleset.and_then(|r| r.handle_access(AccessNet::from_all(abi)));
    }
    let status = ruleset
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi))))
        .and_then(|r| r.add_rules(path_beneath_rules(["/dev/null"], AccessFs::from_all(abi))))
        .and_then(|r| r.add_rules(path_beneath_rules(&writable, AccessFs::from_all(abi))))
        .and_then(|r| r.restrict_self());
    match status {
        Ok(s) if s.ruleset == RulesetStatus::NotEnforced => fail(format!(
            "Landlock is not enforced; {program} was not started"
        )),
        Ok(s) if s.ruleset == RulesetStatus::PartiallyEnforced => {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"sightline sandbox: Landlock is only partly enforced by this kernel\n",
            );
        }
        Ok(_) => {}
        Err(e) => fail(format!("cannot apply Landlock: {e}")),
    }
    if !network && let Err(e) = refuse_internet_sockets() {
        fail(format!("cannot apply the network filter: {e}"))
    }
    let e = std::process::Command::new(program).args(&rest[1..]).exec();
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("sightline sandbox: cannot run {program}: {e}\n").as_bytes(),
    );
    std::process::exit(127)
}

/// Installs a seccomp filter under which `socket(AF_INET | AF_INET6, ...)`
/// and every io_uring call fail with `EACCES` (as Codex confines its
/// children). Landlock has
/// already set `no_new_privs`, which an unprivileged filter needs.
fn refuse_internet_sockets() -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    let family = |f: i32| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, f as u64)
            .and_then(|c| SeccompRule::new(vec![c]))
    };
    let rules = vec![family(libc::AF_INET), family(libc::AF_INET6)]
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    // io_uring can open a socket without the `socket` syscall
    // (IORING_OP_SOCKET), so a child without the network gets no io_uring.
    let filter = SeccompFilter::new(
        [
            (libc::SYS_socket, rules),
            (libc::SYS_io_uring_setup, Vec::new()),
            (libc::SYS_io_uring_enter, Vec::new()),
            (libc::SYS_io_uring_register, Vec::new()),
        ]
        .into_iter()
        .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}
