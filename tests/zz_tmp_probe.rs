fn run(stack: usize, what: &str, s: String) {
    let r = std::thread::Builder::new().stack_size(stack).spawn(move || {
        let r = mdae_rimis::syntax::parse(&s);
        if let Ok(ast) = &r { let p = mdae_rimis::syntax::print(ast); let _ = mdae_rimis::syntax::parse(&p); }
        r.is_ok()
    }).unwrap().join().unwrap();
    println!("{stack} {what}: ok={r}");
}
#[test]
fn probe() {
    let m = |e: String| format!("model M\n Real x;\nequation\n {e}\nend M;\n");
    for st in [2 << 20, 1 << 20] {
        run(st, "paren199", m(format!("x = {}a{};", "(".repeat(199), ")".repeat(199))));
        run(st, "paren10k", m(format!("x = {}a{};", "(".repeat(10000), ")".repeat(10000))));
        run(st, "sum1999", m(format!("x = a{};", " + a".repeat(1998))));
        run(st, "ifeq199", m(format!("{}x = a;{}", "if b then ".repeat(199), " end if;".repeat(199))));
        run(st, "calls199", m(format!("x = {}a{};", "sin(".repeat(199), ")".repeat(199))));
        run(st, "mod199", format!("model M\n Real x({}1{});\nend M;\n", "y(".repeat(199), ")".repeat(199)));
    }
}
