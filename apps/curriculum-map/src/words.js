// Every interface word, once per language (Portuguese and English). Statements are never translated: they are
// shown as the package states them.

export const WORDS = {
  en: {
    title: "Curriculum map", switchTo: "Português", switchLabel: "Mostrar a interface em português",
    back: "Back", waiting: "Waiting for a tool answer…", loading: "Asking the server…",
    cancelled: "The host cancelled the tool call: there is no answer to draw.",
    noStructured: "This answer carries no structured content to draw.",
    unknownShape: "This answer is not one the curriculum map draws.",
    failed: "The server refused the request:", noBridge: "The host offers no tool calls.",
    hierarchy: "Hierarchy", rootPath: "Path from the root", map: "Standards by grade",
    parents: "Belongs to", children: "Contains", noChildren: "Nothing below it in this answer.",
    components: "Learning components", noComponents: "No learning component supports this standard.",
    noGrade: "No grade", focus: "focus standard", before: "comes before the focus", after: "builds on the focus",
    related: "relates to the focus", buildsOn: "builds on", buildsTowards: "builds towards",
    relatesTo: "relates to", linked: "linked in this answer", start: "start", destination: "destination",
    pathStep: "on a path", grouping: "grouping",
    frontierNote: (n) => `${n} link${n === 1 ? "" : "s"} not returned`,
    frontierWhy: { notExpanded: "not expanded before a bound stopped the traversal", maxDepth: "at the depth limit" },
    legend: "Legend", legendArrow: "A → B: A builds towards B (B builds on A)", legendRelated: "relates to (no order)",
    legendFrontier: "has links not returned (load more from the details)",
    detail: "Details", statementWithheld: "Statement text withheld by the package's rights.",
    hoverHint: "Hover, focus or select a standard to read it here.",
    load: "Load a new answer", showContext: "Hierarchy", showProgressions: "Progressions",
    showComponents: "Learning components", showTraversal: "Traverse onwards",
    selected: "Selected", select: "Select",
    type: "Type", grades: "Grades", code: "Code", links: "Links", noCode: "(no code)",
    sources: "Sources", license: "Licence", attribution: "Attribution", disclosures: "Disclosures",
    disclosuresNote: "Full texts: the package resource or get_framework.", labels: "Epistemic labels",
    labelStandards: "standards", labelLinks: "links", labelComponents: "components",
    package: "Package", warnings: "Notes from the server", withheld: "Text withheld",
    complete: "Complete within the answer's scope.", incomplete: "Not complete:",
    pathsFound: (n) => `${n} path${n === 1 ? "" : "s"}`, morePaths: "More paths exist.",
    noPaths: "No path joins these two standards within the search's bounds.",
    path: (i, n) => `Path ${i}: ${n} step${n === 1 ? "" : "s"}`, paths: "Paths",
    total: (shown, total) => `${shown} of ${total}`,
    keys: "Arrow keys move between standards, Enter or Space selects, Home and End jump.",
    fullscreen: "Full screen", exitFullscreen: "Exit full screen",
    contextSent: "Selection shared with the assistant.",
    selectedFor: (code, grade) => `The teacher selected ${code}${grade ? ` (${grade})` : ""} in the curriculum map.`,
    tool: {
      get_standard_context: "Hierarchy of", get_standard_progressions: "Progressions of",
      traverse_learning_progressions: "Traversal from", find_learning_progression_paths: "Paths",
      get_learning_components_for_standard: "Learning components of",
    },
    confidence: "confidence", linksCount: (n) => `${n} link${n === 1 ? "" : "s"} drawn`,
  },
  pt: {
    title: "Mapa curricular", switchTo: "English", switchLabel: "Show the interface in English",
    back: "Voltar", waiting: "Aguardando a resposta de uma ferramenta…", loading: "Consultando o servidor…",
    cancelled: "O anfitrião cancelou a chamada da ferramenta: não há resposta para desenhar.",
    noStructured: "Esta resposta não traz conteúdo estruturado para desenhar.",
    unknownShape: "Esta resposta não é das que o mapa curricular desenha.",
    failed: "O servidor recusou o pedido:", noBridge: "O anfitrião não oferece chamadas de ferramentas.",
    hierarchy: "Hierarquia", rootPath: "Caminho desde a raiz", map: "Habilidades por ano",
    parents: "Pertence a", children: "Contém", noChildren: "Nada abaixo dele nesta resposta.",
    components: "Componentes de aprendizagem", noComponents: "Nenhum componente de aprendizagem apoia esta habilidade.",
    noGrade: "Sem ano", focus: "habilidade em foco", before: "vem antes da habilidade em foco", after: "apoia-se na habilidade em foco",
    related: "relaciona-se com a habilidade em foco", buildsOn: "apoia-se em", buildsTowards: "prepara para",
    relatesTo: "relaciona-se com", linked: "ligada nesta resposta", start: "início", destination: "destino",
    pathStep: "num caminho", grouping: "agrupamento",
    frontierNote: (n) => `${n} ligaç${n === 1 ? "ão" : "ões"} não devolvida${n === 1 ? "" : "s"}`,
    frontierWhy: { notExpanded: "não expandida antes de um limite parar o percurso", maxDepth: "no limite de profundidade" },
    legend: "Legenda", legendArrow: "A → B: A prepara para B (B apoia-se em A)", legendRelated: "relaciona-se com (sem ordem)",
    legendFrontier: "tem ligações não devolvidas (carregue mais nos detalhes)",
    detail: "Detalhes", statementWithheld: "Texto da habilidade retido pelos direitos do pacote.",
    hoverHint: "Passe o cursor, foque ou selecione uma habilidade para lê-la aqui.",
    load: "Carregar uma nova resposta", showContext: "Hierarquia", showProgressions: "Progressões",
    showComponents: "Componentes de aprendizagem", showTraversal: "Percorrer adiante",
    selected: "Selecionada", select: "Selecionar",
    type: "Tipo", grades: "Anos", code: "Código", links: "Ligações", noCode: "(sem código)",
    sources: "Fontes", license: "Licença", attribution: "Atribuição", disclosures: "Avisos",
    disclosuresNote: "Textos completos: o recurso do pacote ou get_framework.", labels: "Rótulos epistêmicos",
    labelStandards: "habilidades", labelLinks: "ligações", labelComponents: "componentes",
    package: "Pacote", warnings: "Notas do servidor", withheld: "Texto retido",
    complete: "Completo no âmbito da resposta.", incomplete: "Incompleto:",
    pathsFound: (n) => `${n} caminho${n === 1 ? "" : "s"}`, morePaths: "Existem mais caminhos.",
    noPaths: "Nenhum caminho liga estas duas habilidades dentro dos limites da busca.",
    path: (i, n) => `Caminho ${i}: ${n} passo${n === 1 ? "" : "s"}`, paths: "Caminhos",
    total: (shown, total) => `${shown} de ${total}`,
    keys: "As setas movem entre habilidades, Enter ou Espaço seleciona, Home e End saltam.",
    fullscreen: "Tela cheia", exitFullscreen: "Sair da tela cheia",
    contextSent: "Seleção partilhada com o assistente.",
    selectedFor: (code, grade) => `O professor selecionou ${code}${grade ? ` (${grade})` : ""} no mapa curricular.`,
    tool: {
      get_standard_context: "Hierarquia de", get_standard_progressions: "Progressões de",
      traverse_learning_progressions: "Percurso a partir de", find_learning_progression_paths: "Caminhos",
      get_learning_components_for_standard: "Componentes de aprendizagem de",
    },
    confidence: "confiança", linksCount: (n) => `${n} ligaç${n === 1 ? "ão desenhada" : "ões desenhadas"}`,
  },
};
// end of WORDS

/** The interface language for a BCP 47 tag: Portuguese for pt*, English otherwise. */
export function langOf(tag) {
  return /^pt\b/i.test(tag || "") ? "pt" : "en";
}

/** ``key``'s word in ``lang``. */
export function word(lang, key) {
  return WORDS[lang][key];
}
