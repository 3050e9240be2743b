"""Next-edit signature suggestions (issue 18): what the calls of a re-signed function are given."""

from __future__ import annotations

from ctxmill.apply.next_edit import candidates
from ctxmill.apply.next_edit import suggest as _suggest


def suggest(root, patch, **kw):
    kw.setdefault("learned", False)  # the propagator's own ranking, as test_next_edit_propagators.py
    return [s for s in _suggest(root, patch, **kw) if s.reason.startswith("the signature")]


def _patch(path, old, new, start):
    rem = "".join(f"-{x}\n" for x in old)
    add = "".join(f"+{x}\n" for x in new)
    return f"--- a/{path}\n+++ b/{path}\n@@ -{start},{len(old)} +{start},{len(new)} @@\n{rem}{add}"


def test_an_argument_named_after_a_renamed_parameter_follows_it(tmp_path):
    # httpx: get_credentials(self, authority) -> (self, host); the caller passed
    # request.url.authority, which is request.url.host now
    (tmp_path / "netrc.py").write_text(
        "class Netrc:\n    def get_credentials(self, host: str):\n        return self.hosts.get(host)\n")
    (tmp_path / "client.py").write_text(
        "def auth(self, request):\n    return self._netrc.get_credentials(request.url.authority)\n\n\n"
        "def record(event, key, value):\n    val = str(value)\n    return event.get_credentials(val)\n\n\n"
        "def other(event, val):\n    return event.get_credentials(val)\n")
    got = suggest(tmp_path, _patch("netrc.py", ["    def get_credentials(self, authority: str):"],
                                   ["    def get_credentials(self, host: str):"], 2))
    assert [(s.path, s.start_line, s.replacement) for s in got] == [
        ("client.py", 2, "    return self._netrc.get_credentials(request.url.host)\n")]
    # a bare name follows only where the caller holds the new one
    (tmp_path / "netrc.py").write_text((tmp_path / "netrc.py").read_text().replace("host", "value"))
    got = suggest(tmp_path, _patch("netrc.py", ["    def get_credentials(self, val: str):"],
                                   ["    def get_credentials(self, value: str):"], 2))
    assert [(s.path, s.start_line, s.replacement) for s in got] == [
        ("client.py", 7, "    return event.get_credentials(value)\n")]


def test_an_underscore_on_a_renamed_parameter_says_unused_and_the_calls_stay(tmp_path):
    (tmp_path / "form.rs").write_text(
        "impl Form {\n    async fn from_request(req: Request, _state: &S) -> Self {\n        "
        "Bytes::from_request(req, state).await\n    }\n}\n")
    got = suggest(tmp_path, _patch("form.rs", ["    async fn from_request(req: Request, state: &S) -> Self {"],
                                   ["    async fn from_request(req: Request, _state: &S) -> Self {"], 2))
    assert got == []


def test_calls_on_one_line_or_neighbouring_lines_are_one_suggestion(tmp_path):
    # cJSON: sort_list(list) -> (list, case_sensitive); the commit's hunk rewrites both lines
    body = ("static cJSON *sort_list(cJSON *list, const cJSON_bool case_sensitive)\n{\n    return list;\n}\n\n"
            "static void merge(cJSON *first, cJSON *second, const cJSON_bool case_sensitive)\n{\n"
            "    first = sort_list(first);\n    second = sort_list(second);\n    pair(sort_list(first), sort_list(second));\n"
            "\n    done(first);\n    third = sort_list(second);\n}\n")
    (tmp_path / "utils.c").write_text(body)
    got = suggest(tmp_path, _patch("utils.c", ["static cJSON *sort_list(cJSON *list)"],
                                   ["static cJSON *sort_list(cJSON *list, const cJSON_bool case_sensitive)"], 1))
    assert sorted((s.start_line, s.end_line, s.replacement) for s in got) == [
        (8, 10, "    first = sort_list(first, case_sensitive);\n    second = sort_list(second, case_sensitive);\n"
                "    pair(sort_list(first, case_sensitive), sort_list(second, case_sensitive));\n"),
        (13, 13, "    third = sort_list(second, case_sensitive);\n")]


def test_a_rewritten_call_keeps_its_own_commas_and_padding(tmp_path):
    # cJSON writes `print_value(child,depth+1)`: the commit's line is `print_value(child,depth+1,fmt)`
    (tmp_path / "cJSON.c").write_text(
        "static int print_value(cJSON *item, int depth, int fmt)\n{\n    return 0;\n}\n\n"
        "static int print_array(cJSON *item, int depth, int fmt)\n{\n    ret=print_value(child,depth+1);\n"
        "    other(1);\n    ret=print_value( child, depth );\n}\n")
    got = suggest(tmp_path, _patch("cJSON.c", ["static int print_value(cJSON *item, int depth)"],
                                   ["static int print_value(cJSON *item, int depth, int fmt)"], 1))
    assert sorted((s.start_line, s.replacement) for s in got) == [
        (8, "    ret=print_value(child,depth+1,fmt);\n"), (10, "    ret=print_value( child, depth, fmt );\n")]


def test_a_parameter_whose_type_changed_reaches_the_arguments_it_touches(tmp_path):
    # serde: serialize_element(value: T) -> (value: &T): the calls lend their value
    (tmp_path / "ser.rs").write_text(
        "impl Seq {\n    fn serialize_element(&mut self, value: &T) -> R {\n        todo!()\n    }\n}\n\n"
        "fn run(seq: &mut Seq, e: T, f: &T) {\n    seq.serialize_element(e);\n    other();\n    seq.serialize_element(make());\n}\n")
    got = suggest(tmp_path, _patch("ser.rs", ["    fn serialize_element(&mut self, value: T) -> R {"],
                                   ["    fn serialize_element(&mut self, value: &T) -> R {"], 2))
    assert [(s.start_line, s.replacement) for s in got] == [(8, "    seq.serialize_element(&e);\n")]
    # tracing: enter(span, at: Instant) -> (span, at: SystemTime): the argument naming the type follows
    (tmp_path / "ser.rs").write_text(
        "fn enter(span: &Span, at: SystemTime) {}\n\nfn run(s: &Span) {\n    enter(s, Instant::now());\n}\n")
    from ctxmill.apply.next_edit import candidates

    found, _ = candidates(tmp_path, _patch("ser.rs", ["fn enter(span: &Span, at: Instant) {}"],
                                           ["fn enter(span: &Span, at: SystemTime) {}"], 1))
    # (the rename propagator proposes the same line: the more confident of the two is shown)
    assert [(s.start_line, s.replacement) for s in found if s.kind == "signature"] == [
        (4, "    enter(s, SystemTime::now());\n")]


def test_a_go_parameter_taken_by_pointer_is_passed_its_address(tmp_path):
    (tmp_path / "hdr.go").write_text(
        "package echo\n\nfunc (h *Header) reset(hdr *fasthttp.RequestHeader) {\n}\n\n"
        "func (c *Context) Reset() {\n\treqHdr.reset(c.Request.Header)\n}\n")
    got = suggest(tmp_path, _patch("hdr.go", ["func (h *Header) reset(hdr fasthttp.RequestHeader) {"],
                                   ["func (h *Header) reset(hdr *fasthttp.RequestHeader) {"], 3))
    assert [(s.start_line, s.replacement) for s in got] == [(7, "\treqHdr.reset(&c.Request.Header)\n")]


def test_a_ruby_positional_default_made_a_keyword_is_passed_by_keyword(tmp_path):
    (tmp_path / "params.rb").write_text(
        "def map_params(params, element, is_array: false)\n  params\nend\n\nmap_params(el, element, true)\n")
    got = suggest(tmp_path, _patch("params.rb", ["def map_params(params, element, is_array = false)"],
                                   ["def map_params(params, element, is_array: false)"], 1))
    assert [(s.start_line, s.replacement) for s in got] == [(5, "map_params(el, element, is_array: true)\n")]


def test_a_java_call_given_an_argument_gives_its_definition_the_callers_declared_type(tmp_path):
    # retrofit's UrlFetchClient: `return parseResponse(fetchResponse);` gained `fetchRequest`, which
    # the caller declared as an HTTPRequest; the definition below takes it with that type (a call
    # line that starts a statement is a call, not Java's `Type name(`)
    src = ("class UrlFetchClient {\n"
           "  @Override public Response execute(Request request) throws IOException {\n"
           "    HTTPRequest fetchRequest = createRequest(request);\n"
           "    HTTPResponse fetchResponse = execute(urlFetchService, fetchRequest);\n"
           "    return parseResponse(fetchResponse, fetchRequest);\n"
           "  }\n\n"
           "  static Response parseResponse(HTTPResponse response) {\n"
           "    return new Response(response.getFinalUrl());\n"
           "  }\n}\n")
    (tmp_path / "UrlFetchClient.java").write_text(src)
    got = _suggest(tmp_path, _patch("UrlFetchClient.java", ["    return parseResponse(fetchResponse);"],
                                    ["    return parseResponse(fetchResponse, fetchRequest);"], 5), learned=False)
    assert [(s.path, s.start_line, s.replacement) for s in got if "the definition" in s.reason] == [
        ("UrlFetchClient.java", 8, "  static Response parseResponse(HTTPResponse response, HTTPRequest fetchRequest) {\n")]
    # where the caller declares no type for the argument, no definition is guessed
    (tmp_path / "UrlFetchClient.java").write_text(src.replace("HTTPRequest fetchRequest =", "var fetchRequest ="))
    got = _suggest(tmp_path, _patch("UrlFetchClient.java", ["    return parseResponse(fetchResponse);"],
                                    ["    return parseResponse(fetchResponse, fetchRequest);"], 5), learned=False)
    assert not [s for s in got if "the definition" in s.reason]


def test_an_indented_java_call_given_a_literal_reaches_the_other_calls(tmp_path):
    # gson's JsonReader: `nextNonWhitespace();` -> `nextNonWhitespace(true);` (a statement that is
    # one call, which Java's definition pattern also reads as `Type name(`)
    (tmp_path / "JsonReader.java").write_text(
        "class JsonReader {\n  private void consumeNonExecutePrefix() throws IOException {\n"
        "    nextNonWhitespace(true);\n    pos--;\n  }\n\n  public JsonToken peek() throws IOException {\n"
        "      switch (nextNonWhitespace()) {\n      case ']':\n        return null;\n      }\n  }\n\n"
        "  private int nextNonWhitespace() throws IOException {\n    return 0;\n  }\n}\n")
    got = _suggest(tmp_path, _patch("JsonReader.java", ["    nextNonWhitespace();"], ["    nextNonWhitespace(true);"], 3),
                   learned=False)
    assert ("JsonReader.java", 8, "      switch (nextNonWhitespace(true)) {\n") in [
        (s.path, s.start_line, s.replacement) for s in got]


def test_a_call_given_an_argument_over_two_lines_reaches_the_other_calls(tmp_path):
    # guice's InjectorImpl: `getImplicitBinding(rawType)` -> `getImplicitBinding(member,\n rawType)`
    (tmp_path / "InjectorImpl.java").write_text(
        "class InjectorImpl {\n  <T> Factory<T> factoryFor(Member member, Class<T> rawType) {\n"
        "    return (Factory<T>) getImplicitBinding(member,\n        rawType);\n  }\n\n"
        "  <T> Factory<T> other(Member member, Class<T> rawType) {\n"
        "    return (Factory<T>) getImplicitBinding(rawType);\n  }\n\n"
        "  <T> Factory<T> getImplicitBinding(Class<T> type) {\n    return null;\n  }\n}\n")
    found, _ = candidates(tmp_path, _patch("InjectorImpl.java", ["    return (Factory<T>) getImplicitBinding(rawType);"],
                                           ["    return (Factory<T>) getImplicitBinding(member,", "        rawType);"], 3))
    # the other call (the repeated propagator copies the edit's two lines there; the commit wrote
    # one) and the definition, given the parameter with the type its caller declared
    assert sorted((s.start_line, s.replacement) for s in found if s.kind == "signature") == [
        (8, "    return (Factory<T>) getImplicitBinding(member, rawType);\n"),
        (11, "  <T> Factory<T> getImplicitBinding(Member member, Class<T> type) {\n")]


def test_a_piped_elixir_call_given_an_argument_counts_the_piped_value(tmp_path):
    # ecto's Repo.Model: `|> maybe_process_after(model, :after_insert)` gained `user_changeset`;
    # the definition takes the piped changeset first, so the old call passed two of its three
    (tmp_path / "model.ex").write_text(
        "defmodule Repo.Model do\n  def insert(user_changeset, model) do\n    changeset\n"
        "    |> maybe_process_after(user_changeset, model, :after_insert)\n  end\n\n"
        "  def update(user_changeset, model) do\n    changeset\n    |> maybe_process_after(model, :after_update)\n  end\n\n"
        "  defp maybe_process_after({:ok, changeset}, model, callback) do\n    {:ok, changeset}\n  end\nend\n")
    found, _ = candidates(tmp_path, _patch("model.ex", ["    |> maybe_process_after(model, :after_insert)"],
                                           ["    |> maybe_process_after(user_changeset, model, :after_insert)"], 4))
    assert sorted((s.start_line, s.replacement) for s in found if s.kind == "signature") == [
        (9, "    |> maybe_process_after(user_changeset, model, :after_update)\n"),
        (12, "  defp maybe_process_after({:ok, changeset}, user_changeset, model, callback) do\n")]


def test_a_call_moved_to_another_receiver_is_no_signature_change(tmp_path):
    # jsoup's Attribute.equals: `key.equals(attribute.key)` -> `Objects.equals(key, attribute.key)`
    # calls another function of that name: the file's own equals(Object) and its calls stay
    (tmp_path / "Attribute.java").write_text(
        "class Attribute {\n  public boolean equals(Object o) {\n    Attribute attribute = (Attribute) o;\n"
        "    return Objects.equals(key, attribute.key);\n  }\n\n  boolean same(Attribute other) {\n"
        "    return val.equals(other.val);\n  }\n}\n")
    found, _ = candidates(tmp_path, _patch("Attribute.java", ["    return key.equals(attribute.key);"],
                                           ["    return Objects.equals(key, attribute.key);"], 4))
    assert [s for s in found if s.kind == "signature"] == []


def test_a_keyword_argument_dropped_from_a_call_leaves_the_definition(tmp_path):
    # fmt's doc/build.py: `pip_install('sphinx-doc/sphinx', '12b8...',\n min_version='1.4.1')` lost
    # its keyword; by place it would have taken **kwargs from `pip_install(package, commit=None, **kwargs)`
    (tmp_path / "build.py").write_text(
        "def pip_install(package, commit=None, **kwargs):\n    pass\n\n\ndef create_build_env():\n"
        "  pip_install('sphinx-doc/sphinx', '12b83372')\n  pip_install('michaeljones/breathe',\n"
        "              '12922231',\n              min_version='4.2.0')\n")
    found, _ = candidates(tmp_path, _patch("build.py", ["  pip_install('sphinx-doc/sphinx', '12b83372',",
                                                        "              min_version='1.4.1.dev20160531')"],
                                           ["  pip_install('sphinx-doc/sphinx', '12b83372')"], 6))
    assert [s for s in found if s.kind == "signature"] == []


def test_a_call_that_fills_a_variadic_parameter_reaches_the_other_calls_not_the_definition(tmp_path):
    # echo's bind.go (labstack/echo d5b32c6e47): `b.bindData(i, params, "param")` -> `(..., nil)`,
    # bindData's last parameter being `files ...T`: the old call passed all but it
    (tmp_path / "bind.go").write_text(
        "package echo\n\nfunc (b *DefaultBinder) BindPathParams(c Context, i interface{}) error {\n"
        "\tif err := b.bindData(i, params, \"param\", nil); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n"
        "func (b *DefaultBinder) BindQueryParams(c Context, i interface{}) error {\n"
        "\tif err := b.bindData(i, c.QueryParams(), \"query\"); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n"
        "func (b *DefaultBinder) bindData(destination interface{}, data map[string][]string, tag string, "
        "files ...map[string][]*multipart.FileHeader) error {\n\treturn nil\n}\n")
    found, _ = candidates(tmp_path, _patch("bind.go", ["\tif err := b.bindData(i, params, \"param\"); err != nil {"],
                                           ["\tif err := b.bindData(i, params, \"param\", nil); err != nil {"], 4))
    assert [(s.start_line, s.replacement) for s in found if s.kind == "signature"] == [
        (11, "\tif err := b.bindData(i, c.QueryParams(), \"query\", nil); err != nil {\n")]


def test_a_call_reaches_the_clause_of_its_arity_and_an_ignoring_clause_ignores_the_new_parameter(tmp_path):
    # ecto's embedded.ex (elixir-ecto/ecto 73e01a5c90): `prepare/3` calls `prepare/4`, which now
    # takes `repo`; the first clause of prepare/4 ignores its parameters (`_types, _adapter`)
    (tmp_path / "embedded.ex").write_text(
        "defmodule Ecto.Embedded do\n  def prepare(changeset, adapter, repo_action) do\n"
        "    prepare(Map.take(changes, embeds), types, adapter, repo, repo_action)\n  end\n\n"
        "  defp prepare(embeds, _types, _adapter, _repo_action) when embeds == %{} do\n    embeds\n  end\nend\n")
    found, _ = candidates(tmp_path, _patch("embedded.ex", ["    prepare(Map.take(changes, embeds), types, adapter, repo_action)"],
                                           ["    prepare(Map.take(changes, embeds), types, adapter, repo, repo_action)"], 3))
    assert [(s.start_line, s.replacement) for s in found if s.kind == "signature"] == [
        (6, "  defp prepare(embeds, _types, _adapter, _repo, _repo_action) when embeds == %{} do\n")]
    # ecto's schema.ex (b6befe989f): `__CALLER__` passed is a parameter `caller`
    (tmp_path / "schema.ex").write_text(
        "defmodule Ecto.Schema do\n  defmacro embedded_schema([do: block]) do\n"
        "    schema(__CALLER__, nil, false, :binary_id, block)\n  end\n\n"
        "  defp schema(source, meta?, type, block) do\n    block\n  end\nend\n")
    found, _ = candidates(tmp_path, _patch("schema.ex", ["    schema(nil, false, :binary_id, block)"],
                                           ["    schema(__CALLER__, nil, false, :binary_id, block)"], 3))
    assert [(s.start_line, s.replacement) for s in found if s.kind == "signature"] == [
        (6, "  defp schema(caller, source, meta?, type, block) do\n")]


def test_a_call_in_a_re_signed_definition_says_nothing_of_its_overloads(tmp_path):
    # javapoet's FieldSpec (square/javapoet 51191c9150): builder(String name) -> builder(Type type,
    # String name), whose body calls builder(type, new Name(name)); builder(Name name) is another
    # function, not one to re-sign
    (tmp_path / "FieldSpec.java").write_text(
        "class FieldSpec {\n  public static Builder builder(Name name) {\n    return new Builder(name);\n  }\n\n"
        "  public static Builder builder(Type type, String name) {\n"
        "    return builder(type, new Name(name));\n  }\n}\n")
    found, _ = candidates(tmp_path, _patch("FieldSpec.java", ["  public static Builder builder(String name) {",
                                                              "    return builder(new Name(name));"],
                                           ["  public static Builder builder(Type type, String name) {",
                                            "    return builder(type, new Name(name));"], 6))
    assert [s for s in found if s.kind == "signature" and s.features.get("definition")] == []


def test_a_renamed_parameter_follows_an_exported_field_of_its_name(tmp_path):
    # urfave/cli 3ca596f527: flagFromEnvOrFile(envVars []string, filePath string) -> filePaths;
    # a caller passes the flag's exported field `f.FilePath`, which is `f.FilePaths` now
    (tmp_path / "flag.go").write_text(
        "package cli\n\nfunc flagFromEnvOrFile(envVars []string, filePaths string) (string, bool) {\n"
        "\treturn \"\", false\n}\n\nfunc (f *StringFlag) Apply() {\n"
        "\tif val, found := flagFromEnvOrFile(f.EnvVars, f.FilePath); found {\n\t\tf.Value = val\n\t}\n}\n")
    got = suggest(tmp_path, _patch("flag.go", ["func flagFromEnvOrFile(envVars []string, filePath string) (string, bool) {"],
                                   ["func flagFromEnvOrFile(envVars []string, filePaths string) (string, bool) {"], 3))
    assert [(s.start_line, s.replacement) for s in got] == [
        (8, "\tif val, found := flagFromEnvOrFile(f.EnvVars, f.FilePaths); found {\n")]


def _hunk(path, start, lines):
    """A hunk from ``lines`` written as a diff's body (' ' context, '-' removed, '+' added)."""
    n_old = sum(1 for x in lines if x[0] in " -")
    n_new = sum(1 for x in lines if x[0] in " +")
    return f"--- a/{path}\n+++ b/{path}\n@@ -{start},{n_old} +{start},{n_new} @@\n" + "".join(x + "\n" for x in lines)


def test_a_parameter_line_changed_in_a_definition_written_one_parameter_a_line(tmp_path):
    # serde's `pub fn expand_derive_serialize(\n    input: &syn::DeriveInput,\n) -> ...` shape: the
    # edit changes only a parameter's line, the definition's first line is context
    (tmp_path / "ser.rs").write_text("impl Seq {\n    fn serialize_element(\n        &mut self,\n        value: &T,\n"
                                     "    ) -> Result<(), Error> {\n        Ok(())\n    }\n}\n")
    (tmp_path / "use.rs").write_text("fn all(seq: &mut Seq, e: T) {\n    seq.serialize_element(e);\n}\n")
    got = suggest(tmp_path, _hunk("ser.rs", 2, ["     fn serialize_element(", "         &mut self,", "-        value: T,",
                                                "+        value: &T,", "     ) -> Result<(), Error> {"]))
    assert [(s.path, s.start_line, s.replacement) for s in got] == [("use.rs", 2, "    seq.serialize_element(&e);\n")]


def test_a_definition_whose_first_line_changed_and_whose_parameters_go_on_below(tmp_path):
    # retrofit's `private RestAdapter(IServer server, Client.Provider clientProvider,` with more
    # parameters on the next line: the changed first line alone has no closing bracket
    (tmp_path / "Geo.java").write_text(
        "class Geo {\n  static int area(int w, int h,\n      int d) {\n    return w * h * d;\n  }\n}\n")
    (tmp_path / "Use.java").write_text(
        "class Use {\n  static int big(int w, int h, int d) {\n    return Geo.area(w, d);\n  }\n}\n")
    got = suggest(tmp_path, _hunk("Geo.java", 1, [" class Geo {", "-  static int area(int w,", "+  static int area(int w, int h,",
                                                  "       int d) {", "     return w * h * d;"]))
    assert [(s.path, s.start_line, s.replacement) for s in got] == [("Use.java", 3, "    return Geo.area(w, h, d);\n")]


def test_a_parameter_renamed_and_retyped_at_once_brings_its_type_to_the_argument(tmp_path):
    # okio: write(OkBuffer source, long byteCount, Timeout timeout) -> (..., Deadline deadline):
    # `Timeout.NONE` passed for it becomes `Deadline.NONE`; an argument of another name stays
    (tmp_path / "Sink.java").write_text(
        "class Sink {\n  void write(Buffer source, long n, Deadline deadline) {\n    deadline.check();\n  }\n}\n")
    (tmp_path / "Use.java").write_text(
        "class Use {\n  void copy(Sink sink, Buffer b, Timeout t) {\n    sink.write(b, 8, Timeout.NONE);\n"
        "    sink.write(b, 8, t);\n  }\n}\n")
    got = suggest(tmp_path, _patch("Sink.java", ["  void write(Buffer source, long n, Timeout timeout) {"],
                                   ["  void write(Buffer source, long n, Deadline deadline) {"], 2))
    assert [(s.path, s.start_line, s.replacement) for s in got] == [("Use.java", 3, "    sink.write(b, 8, Deadline.NONE);\n")]


def _defs(root, patch):
    return [(s.path, s.start_line, s.end_line, s.replacement) for s in candidates(root, patch)[0]
            if s.kind == "signature" and s.reason.endswith("another definition of it")]


def test_an_implementation_re_signed_brings_its_interface_declarations(tmp_path):
    # jsoup 35090950b4: HttpConnection's `timeout(int seconds)` -> `(int millis)`; the commit
    # wrote the same in Connection's two declarations (the interface and its inner Request),
    # not in Response's own `timeout(int)`, which has a body
    (tmp_path / "Connection.java").write_text(
        "public interface Connection {\n    public Connection timeout(int seconds);\n\n"
        "    interface Request {\n        public Request timeout(int seconds);\n    }\n}\n")
    (tmp_path / "HttpConnection.java").write_text(
        "public class HttpConnection implements Connection {\n    public Connection timeout(int millis) {\n"
        "        req.timeout(millis);\n        return this;\n    }\n\n    static class Req {\n"
        "        public Request timeout(int seconds) {\n            this.t = seconds;\n        }\n    }\n}\n")
    patch = _patch("HttpConnection.java", ["    public Connection timeout(int seconds) {", "        req.timeout(seconds);"],
                   ["    public Connection timeout(int millis) {", "        req.timeout(millis);"], 2)
    assert _defs(tmp_path, patch) == [
        ("Connection.java", 2, 2, "    public Connection timeout(int millis);\n"),
        ("Connection.java", 5, 5, "        public Request timeout(int millis);\n")]


def test_a_declaration_follows_the_types_under_its_own_names_and_drops_final(tmp_path):
    # retrofit 9b6bd6bbbe: UiCallback's `sessionExpired()` -> `(final ServerError error)`; the
    # Callback interface writes `void sessionExpired(ServerError error);`
    (tmp_path / "Callback.java").write_text(
        "public interface Callback<T> {\n  void sessionExpired();\n  void call(T t, long n);\n}\n")
    (tmp_path / "UiCallback.java").write_text(
        "class UiCallback<T> implements Callback<T> {\n  public void sessionExpired(final ServerError error) {\n  }\n}\n")
    got = _defs(tmp_path, _patch("UiCallback.java", ["  public void sessionExpired() {"],
                                 ["  public void sessionExpired(final ServerError error) {"], 2))
    assert got == [("Callback.java", 2, 2, "  void sessionExpired(ServerError error);\n")]
    # only the types changed (an implementation names its parameters as it likes): the
    # declaration keeps its names and takes the new types; another arity or type is another method
    (tmp_path / "Sink.java").write_text(
        "interface Sink {\n  void call(T value, long n);\n  void call(T value);\n  void call(T value, int n);\n}\n")
    got = _defs(tmp_path, _patch("UiCallback.java", ["  public void call(T t, long n) {"],
                                 ["  public void call(T t, Deadline n) {"], 2))
    assert got == [("Callback.java", 3, 3, "  void call(T t, Deadline n);\n"),
                   ("Sink.java", 2, 2, "  void call(T value, Deadline n);\n")]


def test_a_go_interface_method_and_a_trait_declaration_follow(tmp_path):
    # testify bf7a93e70c: a suite's `BeforeTest(suiteName, testName string)` gains `when
    # time.Time`; the BeforeTest interface in interfaces.go follows
    (tmp_path / "interfaces.go").write_text(
        "package suite\n\ntype BeforeTest interface {\n\tBeforeTest(suiteName, testName string)\n}\n")
    (tmp_path / "suite_test.go").write_text(
        "package suite\n\nfunc (suite *SuiteTester) BeforeTest(suiteName, testName string, when time.Time) {\n}\n")
    got = _defs(tmp_path, _patch("suite_test.go", ["func (suite *SuiteTester) BeforeTest(suiteName, testName string) {"],
                                 ["func (suite *SuiteTester) BeforeTest(suiteName, testName string, when time.Time) {"], 3))
    assert got == [("interfaces.go", 4, 4, "\tBeforeTest(suiteName, testName string, when time.Time)\n")]
    # tracing: an implementation's `value: &V` -> `value: V`: the trait's declaration (its own
    # parameter names) follows, the return type kept
    (tmp_path / "span.rs").write_text(
        "pub trait Record {\n    fn record<V>(&self, field: &str, v: &V) -> &Self;\n}\n\n"
        "impl Record for Span {\n    fn record<V>(&self, field: &str, value: V) -> &Self {\n        self\n    }\n}\n")
    got = _defs(tmp_path, _patch("span.rs", ["    fn record<V>(&self, field: &str, value: &V) -> &Self {"],
                                 ["    fn record<V>(&self, field: &str, value: V) -> &Self {"], 6))
    assert got == [("span.rs", 2, 2, "    fn record<V>(&self, field: &str, v: V) -> &Self;\n")]


def test_a_parameter_renamed_and_retyped_takes_the_callers_variable_of_the_new_name_unconverted(tmp_path):
    # cJSON 033a542532: `const unsigned char *input` -> `parse_buffer *input_buffer`; callers that
    # converted their own `input_buffer` to the old type pass it as it is now; a conversion of
    # another variable stays, and so does one of a parameter re-typed under its own name (fmt's
    # `to_sys(val)`: the new type may still need it)
    (tmp_path / "parse.rs").write_text("fn parse(item: Item, input_buffer: Buffer) -> bool {\n    true\n}\n\n"
                                       "fn show(val: Sys) {\n}\n")
    (tmp_path / "use.rs").write_text(
        "fn a(item: Item, input_buffer: Buffer) {\n    parse(item, at_offset(input_buffer));\n}\n\n"
        "fn b(item: Item, input_buffer: Buffer) {\n    parse(item, input_buffer.as_str());\n}\n\n"
        "fn c(item: Item, name: Name) {\n    parse(item, name.as_str());\n}\n\n"
        "fn d(val: Utc) {\n    show(to_sys(val));\n}\n")
    got = suggest(tmp_path, _patch("parse.rs", ["fn parse(item: Item, input: &str) -> bool {"],
                                   ["fn parse(item: Item, input_buffer: Buffer) -> bool {"], 1))
    assert sorted((s.path, s.start_line, s.replacement) for s in got) == [
        ("use.rs", 2, "    parse(item, input_buffer);\n"), ("use.rs", 6, "    parse(item, input_buffer);\n")]
    assert suggest(tmp_path, _patch("parse.rs", ["fn show(val: Utc) {"], ["fn show(val: Sys) {"], 5)) == []


def test_the_same_call_given_an_argument_in_two_hunks_reaches_the_third_call(tmp_path):
    # two hunks of one edit each give `fetch` an argument: the second hunk was read with the first
    # one's parameter list where the names of the edit's own re-signed functions belong, and
    # `ctxmill next-edit` exited 1 (TypeError: set - list)
    (tmp_path / "lib.py").write_text("def fetch(url, tries):\n    return url * tries\n")
    gap = "\n" * 30
    (tmp_path / "use.py").write_text(
        "from lib import fetch\n\n\ndef one():\n    return fetch('a', 1, True)\n" + gap
        + "def two():\n    return fetch('b', 2, True)\n\n\ndef three():\n    return fetch('c', 3)\n")
    patch = (_patch("use.py", ["    return fetch('a', 1)"], ["    return fetch('a', 1, True)"], 5)
             + _patch("use.py", ["    return fetch('b', 2)"], ["    return fetch('b', 2, True)"], 37).split("\n", 2)[2])
    got = {(s.path, s.start_line, s.replacement) for s in suggest(tmp_path, patch)}
    assert ("use.py", 41, "    return fetch('c', 3, True)\n") in got


def test_the_wrong_tops_diagnosis_names_what_differs_at_the_site():
    # benchmarks/next_edit_sigmiss.py --wrong-tops: a wrong signature suggestion at the commit's
    # own lines is counted by the part that differs, one elsewhere by the kind of site
    import sys
    from pathlib import Path

    from ctxmill.apply.next_edit import Suggestion

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from next_edit_sigmiss import _at_target, _elsewhere

    def sug(line, text, reason="the signature of send changed: a call"):
        return Suggestion("api.py", line, line, text, reason, 0.5, "signature", {})

    def target(after, start=3, end=3):
        return {"path": "api.py", "start_line": start, "end_line": end, "before": "", "after": after}

    assert _at_target(sug(3, "send(r, True)\n"), target("send(r, prefetch=True)\n"), "send") == "keyword vs positional"
    assert _at_target(sug(3, "send(r, None, 1)\n"), target("send(r, 1)\n"), "send") == "a removed argument left"
    assert _at_target(sug(3, "send(r, 1)\n"), target("send(r, 2)\n"), "send") == "a new argument's value"
    assert _at_target(sug(3, "send(1, r)\n"), target("send(r, 1)\n"), "send") == "an argument's position"
    assert _at_target(sug(3, "send(r, 1)\n"), target("x = 1\nsend(r, x)\n", 2, 3), "send").startswith("line span")
    assert _at_target(sug(3, "send(r,1)\n"), target("send(r, 1)\n"), "send") == "whitespace or wrapping"
    files = {"api.py": "def send(req, n):\n    pass\nsend(r, 1)\n", "tests/test_api.py": "send(r, 1)\n"}
    defn = sug(1, "def send(req):\n", "a call of send changed its arguments: the definition")
    assert _elsewhere(defn, "send", files, [], []) == "a definition or declaration"
    in_test = Suggestion("tests/test_api.py", 1, 1, "send(r, 1, 2)\n", "the signature of send changed: a call", 0.5,
                         "signature", {})
    assert _elsewhere(in_test, "send", files, [], []) == "a call in a test the commit left alone"
    assert _elsewhere(sug(3, "send(r, 1, 2)\n"), "send", files, [target("x\n", 1, 1)], []) == \
        "another call in a file the commit changed"


def test_a_dropped_arguments_assignment_right_above_the_call_goes_with_it(tmp_path):
    # jinja 058bc8a98d: macro_body(self, node, frame, children) lost `children`, and the caller's
    # `children = ...` line above the call went with the argument
    (tmp_path / "compiler.py").write_text(
        "class CodeGenerator:\n    def macro_body(self, node, frame):\n        return frame, node\n\n"
        "    def visit_CallBlock(self, node, frame):\n        children = node.iter_child_nodes(exclude=('call',))\n"
        "        call_frame, macro_ref = self.macro_body(node, frame, children)\n        return call_frame\n\n"
        "    def visit_Macro(self, node, frame):\n        children = node.iter_child_nodes()\n"
        "        macro_frame, macro_ref = self.macro_body(node, frame, children)\n        return children\n")
    got = suggest(tmp_path, _patch("compiler.py", ["    def macro_body(self, node, frame, children):"],
                                   ["    def macro_body(self, node, frame):"], 2))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (6, 7, "        call_frame, macro_ref = self.macro_body(node, frame)\n"),
        # read again below the call: its assignment stays
        (12, 12, "        macro_frame, macro_ref = self.macro_body(node, frame)\n")]
    # Rust: `let token = ...;` above, and a `token::` path is no use of the local
    (tmp_path / "de.rs").write_text(
        "fn expect_end(d: &mut D) -> R {\n    Ok(())\n}\n\nfn visit(d: &mut D) -> R {\n"
        "    let token = try!(token::next(d));\n    try!(expect_end(d, token));\n    Ok(())\n}\n")
    got = suggest(tmp_path, _patch("de.rs", ["fn expect_end(d: &mut D, token: Token) -> R {"],
                                   ["fn expect_end(d: &mut D) -> R {"], 1))
    assert [(s.path, s.start_line, s.end_line, s.replacement) for s in got] == [
        ("de.rs", 6, 7, "    try!(expect_end(d));\n")]


def test_a_dropped_first_parameter_made_the_receiver_passes_its_argument_as_the_receiver(tmp_path):
    # okio e8cf1373b3: `fun encodeUtf8(s: String)` -> `fun String.encodeUtf8()`; retrofit 4397ba3657:
    # a static `create(RestAdapter restAdapter, Class<T> type)` of RestAdapter made an instance method
    (tmp_path / "ByteString.kt").write_text(
        "class ByteString {\n  companion object {\n    fun String.encodeUtf8(): ByteString {\n"
        "      return ByteString()\n    }\n  }\n}\n")
    (tmp_path / "Base64.kt").write_text(
        'val MAP = ByteString.encodeUtf8("ABC").data\n\nval B = encodeUtf8(prefix + "x")\n')
    got = suggest(tmp_path, _patch("ByteString.kt", ["    fun encodeUtf8(s: String): ByteString {"],
                                   ["    fun String.encodeUtf8(): ByteString {"], 3))
    assert sorted((s.path, s.start_line, s.replacement) for s in got) == [
        ("Base64.kt", 1, 'val MAP = "ABC".encodeUtf8().data\n'),
        ("Base64.kt", 3, 'val B = (prefix + "x").encodeUtf8()\n')]
    (tmp_path / "RestAdapter.java").write_text(
        "class RestAdapter {\n  public <T> T create(Class<T> type) {\n    return null;\n  }\n\n"
        "  static Object make(RestAdapter restAdapter, Class<?> type) {\n    return create(restAdapter, type);\n  }\n}\n")
    patch = _patch("RestAdapter.java", ["  public static <T> T create(RestAdapter restAdapter, Class<T> type) {"],
                   ["  public <T> T create(Class<T> type) {"], 2)
    assert [(s.start_line, s.replacement) for s in suggest(tmp_path, patch)] == [
        (7, "    return restAdapter.create(type);\n")]
    # a static method of another class than the dropped parameter's type keeps its qualifier
    (tmp_path / "Util.java").write_text((tmp_path / "RestAdapter.java").read_text().replace("class RestAdapter", "class Util"))
    (tmp_path / "RestAdapter.java").unlink()
    assert [(s.start_line, s.replacement) for s in suggest(tmp_path, patch.replace("RestAdapter.java", "Util.java"))] == [
        (7, "    return create(type);\n")]


def test_a_local_or_another_headers_parameter_is_no_field_the_caller_holds(tmp_path):
    # gson 77c2c29316: `boolean first) throws IOException {`, the second line of another method's
    # header, was read as a field, so `visitArrayMember` (which holds `isFirst`, not `first`) was
    # told to call `addCommaCheckingFirst(first)`; the method that does hold `first` still is
    src = ("class Visitor {\n"
           "  private boolean serializeNulls;\n\n"
           "  private void addCommaCheckingFirst(boolean first) throws IOException {\n"
           "    writer.elementSeparator();\n"
           "  }\n\n"
           "  public void visitArrayMember(JsonArray parent, JsonPrimitive member,\n"
           "      boolean isFirst) throws IOException {\n"
           "    addCommaCheckingFirst();\n"
           "  }\n\n"
           "  public void visitObjectMember(JsonObject parent, String memberName,\n"
           "      boolean first) throws IOException {\n"
           "    addCommaCheckingFirst();\n"
           "  }\n}\n")
    (tmp_path / "Visitor.java").write_text(src)
    patch = _patch("Visitor.java", ["  private void addCommaCheckingFirst() throws IOException {"],
                   ["  private void addCommaCheckingFirst(boolean first) throws IOException {"], 4)
    got = {s.start_line: s for s in candidates(tmp_path, patch)[0] if s.kind == "signature"}
    assert got[15].replacement == "    addCommaCheckingFirst(first);\n" and not got[15].features["unbound"]
    assert got[10].features["unbound"]  # the caller has no `first`: held, as where the file names none
    # a class's real field of that name is still one (`private boolean first;`)
    (tmp_path / "Visitor.java").write_text(src.replace("private boolean serializeNulls;", "private boolean first;"))
    got = {s.start_line: s for s in candidates(tmp_path, patch)[0] if s.kind == "signature"}
    assert not got[10].features["unbound"]
    # cJSON 222686513e: a local of another function (`cJSON_bool case_sensitive = false;`) is no
    # global the public function sees; a file-scope declaration is
    csrc = ("static int apply_patch(cJSON *object, const cJSON *patch, const cJSON_bool case_sensitive)\n"
            "{\n    cJSON_bool case_sensitive = false;\n    return 0;\n}\n\n"
            "int cJSONUtils_ApplyPatches(cJSON * const object, const cJSON * const patches)\n"
            "{\n    int status = 0;\n    status = apply_patch(object, patches);\n    return status;\n}\n")
    (tmp_path / "Visitor.java").unlink()
    (tmp_path / "utils.c").write_text(csrc)
    cpatch = _patch("utils.c", ["static int apply_patch(cJSON *object, const cJSON *patch)"],
                    ["static int apply_patch(cJSON *object, const cJSON *patch, const cJSON_bool case_sensitive)"], 1)
    got = [s for s in candidates(tmp_path, cpatch)[0] if s.kind == "signature"]
    assert [(s.start_line, s.replacement, s.features["unbound"]) for s in got] == [
        (10, "    status = apply_patch(object, patches, case_sensitive);\n", 1.0)]
    (tmp_path / "utils.c").write_text("static cJSON_bool case_sensitive = true;\n\n" + csrc)
    got = [s for s in candidates(tmp_path, cpatch.replace("@@ -1,1 +1,1 @@", "@@ -3,1 +3,1 @@"))[0] if s.kind == "signature"]
    assert [(s.start_line, s.features["unbound"]) for s in got] == [(12, 0.0)]
    # ... but the calling function's own local is held, even where the scope text starts at an
    # `else if (` that C's definition pattern reads as a header (cJSON 62b08f1336, line 644)
    (tmp_path / "utils.c").write_text(
        "static int apply_patch(cJSON *object, const cJSON *patch)\n{\n    cJSON_bool case_sensitive = false;\n"
        "    int status = 0;\n    if (status)\n    {\n        status = 1;\n    }\n    else if (status == 2)\n    {\n"
        "        status = get_item(object, patch);\n    }\n    return status;\n}\n\n"
        "static cJSON *get_item(cJSON *object, const cJSON *patch, const cJSON_bool case_sensitive)\n{\n    return object;\n}\n")
    got = [s for s in candidates(tmp_path, _patch("utils.c", ["static cJSON *get_item(cJSON *object, const cJSON *patch)"],
                                                  ["static cJSON *get_item(cJSON *object, const cJSON *patch, const cJSON_bool case_sensitive)"], 16))[0]
           if s.kind == "signature"]
    assert [(s.start_line, s.replacement, s.features["unbound"]) for s in got] == [
        (11, "        status = get_item(object, patch, case_sensitive);\n", 0.0)]
